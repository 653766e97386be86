package org.jrdma;

/**
 * A failed RDMA operation. {@link #errno()} keeps the machine-readable cause of a failed system,
 * verbs or rdma_cm call (0 when the failure has no errno).
 */
public class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int errno;

    public RdmaException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    public RdmaException(String message, Throwable cause) {
        super(message, cause);
        this.errno = 0;
    }

    /** The errno of the failed call, or 0. */
    public int errno() {
        return errno;
    }
}
