package org.jrdma;

/** The server's {@link AdmissionPolicy} refused the connection, with its code and reason. */
public class AdmissionRefusedException extends ConnectionRejectedException {
    private static final long serialVersionUID = 1L;

    /** The policy's code. */
    private final int code;
    /** The policy's reason. */
    private final String serverReason;

    /**
     * The failure.
     *
     * @param message      what failed and why
     * @param code         the policy's code
     * @param serverReason the reason the server's policy gave
     */
    public AdmissionRefusedException(String message, int code, String serverReason) {
        super(message, "refused by the server's admission policy");
        this.code = code;
        this.serverReason = serverReason;
    }

    /** {@return the application code the policy gave} */
    public int code() {
        return code;
    }

    /** {@return the reason the policy gave (may be empty)} */
    public String serverReason() {
        return serverReason;
    }
}
