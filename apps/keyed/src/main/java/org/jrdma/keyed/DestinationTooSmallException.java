package org.jrdma.keyed;

import org.jrdma.RdmaException;

/** The value is larger than the fetch's destination; nothing was written. {@link #needed()} says how large. */
public class DestinationTooSmallException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The value's length in bytes. */
    private final long needed;

    /**
     * A refused fetch.
     *
     * @param message what was fetched into what
     * @param needed  the value's length in bytes
     */
    public DestinationTooSmallException(String message, long needed) {
        super(message, 0);
        this.needed = needed;
    }

    /**
     * The size a destination needs.
     *
     * @return the value's length in bytes
     */
    public long needed() {
        return needed;
    }
}
