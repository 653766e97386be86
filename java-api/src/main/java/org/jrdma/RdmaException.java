package org.jrdma;

/**
 * A failed RDMA operation. {@link #errno()} keeps the machine-readable cause of a failed system,
 * verbs or rdma_cm call (0 when the failure has no errno).
 */
public class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The errno, or 0. */
    private final int errno;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param errno   the errno of the failed call, or 0
     */
    public RdmaException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param cause   the underlying failure
     */
    public RdmaException(String message, Throwable cause) {
        super(message, cause);
        this.errno = 0;
    }

    /** {@return the errno of the failed call, or 0} */
    public int errno() {
        return errno;
    }
}
