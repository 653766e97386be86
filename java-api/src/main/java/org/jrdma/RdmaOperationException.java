package org.jrdma;

/** A work request completed with an error status (ibv_wc_status), e.g. REM_ACCESS_ERR for a bad rkey. */
public class RdmaOperationException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The ibv_wc_status. */
    private final int status;
    /** The operation that failed. */
    private final String operation;

    /**
     * The failure.
     *
     * @param operation  the operation that failed
     * @param status     the ibv_wc_status
     * @param statusText the status's name
     */
    public RdmaOperationException(String operation, int status, String statusText) {
        super(operation + " failed: " + statusText + " (ibv_wc_status " + status + ")", 0);
        this.status = status;
        this.operation = operation;
    }

    /** {@return the ibv_wc_status} */
    public int status() {
        return status;
    }

    /** {@return the operation: SEND, RDMA_WRITE, RDMA_READ, ...} */
    public String operation() {
        return operation;
    }
}
