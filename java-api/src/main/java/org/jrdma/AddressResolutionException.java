package org.jrdma;

/** The address could not be resolved to a local RDMA device (rdma_resolve_addr failed). */
public class AddressResolutionException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    public AddressResolutionException(String message, int errno) {
        super(message, errno);
    }
}
