package org.jrdma;

/** The peer is a jrdma endpoint and refused the handshake; both sides report the reason. */
public class ConnectionRejectedException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    private final String reason;

    public ConnectionRejectedException(String message, String reason) {
        super(message, 0);
        this.reason = reason;
    }

    /** E.g. "protocol version mismatch", "eager buffer size mismatch". */
    public String reason() {
        return reason;
    }
}
