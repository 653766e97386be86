package org.jrdma.netty;

import org.jrdma.Rdma;

/** Whether the jrdma transport can be used here, as Netty's {@code Epoll} class answers it for epoll. */
public final class RdmaTransport {
    private RdmaTransport() {
    }

    /** {@return true when jrdma's native library loaded (its TCP and shared-memory transports work everywhere it loads)} */
    public static boolean isAvailable() {
        return Rdma.isAvailable();
    }

    /** {@return why {@link #isAvailable()} is false, or null when it is true} */
    public static Throwable unavailabilityCause() {
        return Rdma.unavailabilityCause();
    }

    /**
     * Throws when the transport cannot be used.
     *
     * @throws UnsatisfiedLinkError with {@link #unavailabilityCause()} as its cause
     */
    public static void ensureAvailability() {
        if (!isAvailable()) {
            throw (Error) new UnsatisfiedLinkError("the jrdma transport is not available").initCause(unavailabilityCause());
        }
    }
}
