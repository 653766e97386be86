package org.jrdma;

/**
 * A connection could not be established. The subclasses say why: {@link ConnectionRefusedException},
 * {@link ConnectionRejectedException}, {@link AddressResolutionException}, {@link RouteResolutionException},
 * {@link ConnectTimeoutException}.
 */
public class ConnectionException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param errno   the errno of the failed call, or 0
     */
    public ConnectionException(String message, int errno) {
        super(message, errno);
    }
}
