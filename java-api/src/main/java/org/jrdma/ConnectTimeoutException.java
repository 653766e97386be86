package org.jrdma;

/** The peer did not answer in time (RDMA_CM_EVENT_UNREACHABLE or the connect timeout). */
public class ConnectTimeoutException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param errno   the errno of the failed call, or 0
     */
    public ConnectTimeoutException(String message, int errno) {
        super(message, errno);
    }
}
