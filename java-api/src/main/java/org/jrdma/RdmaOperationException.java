package org.jrdma;

/** A work request completed with an error status (ibv_wc_status), e.g. REM_ACCESS_ERR for a bad rkey. */
public class RdmaOperationException extends RdmaException {
    private static final long serialVersionUID = 1L;
    /** The ibv_wc_status of a work request flushed because its queue pair left the ready state (the connection ended). */
    public static final int WR_FLUSH_ERR = 5;

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
        this(operation, status, statusText, null);
    }

    /**
     * The failure, with what the transport knows of its cause.
     *
     * @param operation  the operation that failed
     * @param status     the ibv_wc_status
     * @param statusText the status's name
     * @param detail     the transport's words for why (e.g. the socket error of a TCP channel), appended to the message; null for none
     */
    public RdmaOperationException(String operation, int status, String statusText, String detail) {
        super(operation + " failed: " + statusText + " (ibv_wc_status " + status + ")" + (detail == null ? "" : ": " + detail), 0);
        this.status = status;
        this.operation = operation;
    }

    /** {@return the ibv_wc_status} */
    public int status() {
        return status;
    }

    /**
     * {@return whether the operation was flushed ({@link #WR_FLUSH_ERR}): it did not fail on its own, the
     * connection ended while it was posted}
     */
    public boolean flushed() {
        return status == WR_FLUSH_ERR;
    }

    /** {@return the operation: SEND, RDMA_WRITE, RDMA_READ, ...} */
    public String operation() {
        return operation;
    }
}
