package org.jrdma;

/**
 * The channel closed because its operations waited longer than {@link RdmaConfig#operationTimeoutMillis()}
 * without one of them completing, or because one operation was not done within its own deadline
 * ({@link RdmaChannel#withDeadline}): the peer stopped returning credits or answering rendezvous sends,
 * or the device stopped completing. A posted RDMA operation cannot be withdrawn alone, so every
 * pending operation of the channel fails with this.
 */
public class OperationTimeoutException extends RdmaClosedException {
    private static final long serialVersionUID = 1L;

    /** How long the operations had waited. */
    private final long waitedMillis;

    /**
     * The failure.
     *
     * @param message      what failed and why
     * @param waitedMillis how long the operations had waited
     */
    public OperationTimeoutException(String message, long waitedMillis) {
        super(message);
        this.waitedMillis = waitedMillis;
    }

    /** {@return how long the operations had waited without progress when the channel closed} */
    public long waitedMillis() {
        return waitedMillis;
    }
}
