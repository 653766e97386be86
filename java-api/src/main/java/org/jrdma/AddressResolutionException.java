package org.jrdma;

/** The address could not be resolved to a local RDMA device (rdma_resolve_addr failed). */
public class AddressResolutionException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param errno   the errno of the failed call, or 0
     */
    public AddressResolutionException(String message, int errno) {
        super(message, errno);
    }
}
