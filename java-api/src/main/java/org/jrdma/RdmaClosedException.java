package org.jrdma;

/** The object (context, buffer, channel) was closed; using it again is refused with this exception. */
public class RdmaClosedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     */
    public RdmaClosedException(String message) {
        super(message, 0);
    }

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param cause   the underlying failure
     */
    public RdmaClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
