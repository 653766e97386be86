package org.jrdma;

/** The peer is a jrdma endpoint and refused the handshake; both sides report the reason. */
public class ConnectionRejectedException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    /** Why. */
    private final String reason;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param reason  why
     */
    public ConnectionRejectedException(String message, String reason) {
        super(message, 0);
        this.reason = reason;
    }

    /** {@return the reason, e.g. "protocol version mismatch", "eager buffer size mismatch"} */
    public String reason() {
        return reason;
    }
}
