package org.jrdma;

/** No route to the peer over RDMA (rdma_resolve_route failed). */
public class RouteResolutionException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    public RouteResolutionException(String message, int errno) {
        super(message, errno);
    }
}
