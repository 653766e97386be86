package org.jrdma;

/** No route to the peer over RDMA (rdma_resolve_route failed). */
public class RouteResolutionException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param errno   the errno of the failed call, or 0
     */
    public RouteResolutionException(String message, int errno) {
        super(message, errno);
    }
}
