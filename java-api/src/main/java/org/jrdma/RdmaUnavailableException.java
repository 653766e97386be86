package org.jrdma;

/**
 * jrdma cannot run in this JVM: no implementation on the class path, or its native library could not
 * be loaded here (the message names the innermost cause and the remedy; the cause is kept).
 */
public class RdmaUnavailableException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message why jrdma cannot run, with the remedy
     * @param cause   the underlying failure (null: none)
     */
    public RdmaUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
