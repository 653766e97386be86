package org.jrdma;

/** The peer did not answer in time (RDMA_CM_EVENT_UNREACHABLE or the connect timeout). */
public class ConnectTimeoutException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    public ConnectTimeoutException(String message, int errno) {
        super(message, errno);
    }
}
