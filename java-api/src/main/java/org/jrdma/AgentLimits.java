package org.jrdma;

/**
 * Bounds of the remote-memory agent of each channel (docs/configuration.md):
 * <ul>
 * <li>{@code timeoutMillis}: how long {@link RdmaChannel#allocateRemote} waits for the peer's
 * answer before it fails with {@link AgentTimeoutException} (a grant that arrives later is released
 * at once);</li>
 * <li>{@code quotaBytes} and {@code quotaCount}: how much memory a peer may have this side allocate
 * for it at a time, per channel. A request beyond either is refused with
 * {@link RemoteAllocationException} at the peer, before anything is allocated. 0 and 0 turn serving
 * off (every request is refused).</li>
 * </ul>
 */
public record AgentLimits(int timeoutMillis, long quotaBytes, int quotaCount) {
    /** 10 s, 64 MiB and 256 allocations per channel. */
    public static final AgentLimits DEFAULTS = new AgentLimits(10000, 64L << 20, 256);

    /**
     * Checks the limits.
     *
     * @param timeoutMillis how long an allocation request waits for the peer (100..3600000)
     * @param quotaBytes    bytes a peer may hold allocated through one channel
     * @param quotaCount    allocations a peer may hold through one channel
     * @throws ConfigurationException when a limit is out of range
     */
    public AgentLimits {
        if (timeoutMillis < 100 || timeoutMillis > 3600000) {
            throw new ConfigurationException("agentTimeoutMillis=" + timeoutMillis + " is out of range; allowed: 100..3600000"
                    + " (milliseconds an allocation request waits for the peer)");
        }
        if (quotaBytes < 0) {
            throw new ConfigurationException("agentQuotaBytes=" + quotaBytes + " is out of range; allowed: 0.."
                    + Long.MAX_VALUE + " (bytes a peer may have us allocate for it)");
        }
        if (quotaCount < 0 || quotaCount > 65536) {
            throw new ConfigurationException("agentQuotaCount=" + quotaCount + " is out of range; allowed: 0..65536"
                    + " (allocations a peer may hold)");
        }
    }
}
