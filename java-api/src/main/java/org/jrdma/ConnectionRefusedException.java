package org.jrdma;

/** Nobody listens at the address (the peer's RDMA CM rejected without a jrdma reason). */
public class ConnectionRefusedException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param errno   the errno of the failed call, or 0
     */
    public ConnectionRefusedException(String message, int errno) {
        super(message, errno);
    }
}
