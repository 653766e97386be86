package org.jrdma;

/** The object (context, buffer, channel) was closed; using it again is refused with this exception. */
public class RdmaClosedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public RdmaClosedException(String message) {
        super(message, 0);
    }

    public RdmaClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
