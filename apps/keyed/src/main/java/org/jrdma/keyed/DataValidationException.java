package org.jrdma.keyed;

import org.jrdma.RdmaException;

/**
 * The bytes a fetch received do not match the CRC-32C the producer computed over the value
 * ({@link KeyedOptions#validateData}): they were changed on the way or at either end while in flight.
 */
public class DataValidationException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what was fetched, and both checksums
     */
    public DataValidationException(String message) {
        super(message, 0);
    }
}
