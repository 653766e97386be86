package org.jrdma;

/** The server's {@link AdmissionPolicy} refused the connection, with its code and reason. */
public class AdmissionRefusedException extends ConnectionRejectedException {
    private static final long serialVersionUID = 1L;

    private final int code;
    private final String serverReason;

    public AdmissionRefusedException(String message, int code, String serverReason) {
        super(message, "refused by the server's admission policy");
        this.code = code;
        this.serverReason = serverReason;
    }

    /** The application code the policy gave. */
    public int code() {
        return code;
    }

    /** The reason the policy gave (may be empty). */
    public String serverReason() {
        return serverReason;
    }
}
