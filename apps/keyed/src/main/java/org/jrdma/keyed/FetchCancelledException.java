package org.jrdma.keyed;

import org.jrdma.RdmaException;

/** The producer dropped the fetch: its step was cleaned up ({@link KeyedStore#cleanup}) or the value withdrawn. */
public class FetchCancelledException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what was fetched and why it ended
     */
    public FetchCancelledException(String message) {
        super(message, 0);
    }
}
