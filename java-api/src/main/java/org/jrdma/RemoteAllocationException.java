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

    private final Reason reason;
    private final long limit;

    public RemoteAllocationException(String message, Reason reason, long limit, int errno) {
        super(message, errno);
        this.reason = reason;
        this.limit = limit;
    }

    public Reason reason() {
        return reason;
    }

    /** The peer's quota that was reached (OVER_COUNT: allocations, OVER_BYTES: bytes), else 0. */
    public long limit() {
        return limit;
    }
}
