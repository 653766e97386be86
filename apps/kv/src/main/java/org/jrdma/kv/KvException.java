package org.jrdma.kv;

import org.jrdma.RdmaException;

/** A push or pull failed: a server refused it (unknown key, wrong length, merge error) or went away. */
public class KvException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with no underlying exception.
     *
     * @param message what failed and why
     */
    public KvException(String message) {
        super(message, 0);
    }

    /**
     * A failure caused by another.
     *
     * @param message what failed
     * @param cause   why
     */
    public KvException(String message, Throwable cause) {
        super(message, cause);
    }
}
