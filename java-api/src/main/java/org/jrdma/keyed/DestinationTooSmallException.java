package org.jrdma.keyed;

import org.jrdma.RdmaException;

/** The value is larger than the fetch's destination; nothing was written. {@link #needed()} says how large. */
public class DestinationTooSmallException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final long needed;

    public DestinationTooSmallException(String message, long needed) {
        super(message, 0);
        this.needed = needed;
    }

    public long needed() {
        return needed;
    }
}
