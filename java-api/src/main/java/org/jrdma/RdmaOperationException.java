package org.jrdma;

/** A work request completed with an error status (ibv_wc_status), e.g. REM_ACCESS_ERR for a bad rkey. */
public class RdmaOperationException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String operation;

    public RdmaOperationException(String operation, int status, String statusText) {
        super(operation + " failed: " + statusText + " (ibv_wc_status " + status + ")", 0);
        this.status = status;
        this.operation = operation;
    }

    /** The ibv_wc_status. */
    public int status() {
        return status;
    }

    /** SEND, RDMA_WRITE, RDMA_READ, ... */
    public String operation() {
        return operation;
    }
}
