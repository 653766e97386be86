package org.jrdma;

/**
 * The RDMA device went away under the context: its network interface was deleted or its driver
 * unloaded. Channels on it close with this exception, and the context refuses new work with it
 * ({@link RdmaContext#failure()}); close the context and open one on another device. The kernel
 * finishes removing a Soft-RoCE device only once no process holds it open (docs/testing.md).
 */
public class DeviceRemovedException extends RdmaClosedException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what went away, and what it closed
     */
    public DeviceRemovedException(String message) {
        super(message);
    }
}
