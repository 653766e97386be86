package org.jrdma.keyed;

import org.jrdma.RdmaException;

/** No value within {@link KeyedOptions#fetchTimeoutMillis()}; the producer dropped the fetch. */
public class FetchTimeoutException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what was fetched and why it ended
     */
    public FetchTimeoutException(String message) {
        super(message, 0);
    }
}
