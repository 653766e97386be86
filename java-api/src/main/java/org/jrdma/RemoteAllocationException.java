package org.jrdma;

/**
 * The peer refused a {@link RdmaChannel#allocateRemote} request: it would exceed the peer's quota for
 * this channel ({@link AgentLimits}), or the peer could not allocate or register the memory
 * ({@link #errno()}). Nothing was allocated; the channel stays open.
 */
public class RemoteAllocationException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** Why the peer refused. */
    public enum Reason {
        /** The channel holds the peer's limit of allocations ({@link #limit()}). */
        OVER_COUNT,
        /** The allocation would exceed the peer's byte limit ({@link #limit()}). */
        OVER_BYTES,
        /** The peer could not allocate or register it ({@link #errno()}). */
        FAILED
    }

    /** Why. */
    private final Reason reason;
    /** The quota reached, or 0. */
    private final long limit;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param reason  why
     * @param limit   the quota reached, or 0
     * @param errno   the errno of the failed call, or 0
     */
    public RemoteAllocationException(String message, Reason reason, long limit, int errno) {
        super(message, errno);
        this.reason = reason;
        this.limit = limit;
    }

    /** {@return why the peer refused} */
    public Reason reason() {
        return reason;
    }

    /** {@return the peer's quota that was reached (OVER_COUNT: allocations, OVER_BYTES: bytes), else 0} */
    public long limit() {
        return limit;
    }
}
