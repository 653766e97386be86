package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.ObjectName;
import org.jrdma.ChannelCounters;

/**
 * The sums of a context's channel counters: closed channels' totals kept here, open channels read
 * when asked. Registered as an MXBean for the context's lifetime (a failure to register is logged,
 * not fatal: JMX is a view, not a function).
 */
final class ContextCounters implements RdmaContextMXBean {
    private static final System.Logger LOG = System.getLogger("org.jrdma.context");

    private final String device;
    private final Supplier<Collection<JniChannel>> openChannels;
    private ChannelCounters closed = new ChannelCounters(new long[ChannelCounters.NAMES.size()]); // guarded by this
    private final ConcurrentHashMap<String, LongAdder> errors =
            new ConcurrentHashMap<>();
    private final Supplier<Map<String, Long>> deviceCounters;
    private final IntSupplier cqResizes;
    private final IntSupplier cqCapacity;
    private final LongSupplier poolBytes;
    private ObjectName name;

    ContextCounters(String device, Supplier<Collection<JniChannel>> openChannels, Supplier<Map<String, Long>> deviceCounters,
                    IntSupplier cqResizes, IntSupplier cqCapacity, LongSupplier poolBytes) {
        this.device = device;
        this.openChannels = openChannels;
        this.deviceCounters = deviceCounters;
        this.cqResizes = cqResizes;
        this.cqCapacity = cqCapacity;
        this.poolBytes = poolBytes;
    }

    /** An operation failed with this status (its name): counted per status, for the context's lifetime. */
    void operationFailed(String status) {
        errors.computeIfAbsent(status, k -> new LongAdder()).increment();
    }

    /** The failed operations by status name, sorted by name. */
    Map<String, Long> errorsByStatus() {
        Map<String, Long> snapshot = new TreeMap<>();
        errors.forEach((status, count) -> snapshot.put(status, count.sum()));
        return Collections.unmodifiableMap(snapshot);
    }

    void register(Object context) {
        try {
            ObjectName candidate = new ObjectName("org.jrdma:type=Context,device=" + ObjectName.quote(device) + ",id="
                    + Integer.toHexString(System.identityHashCode(context)));
            ManagementFactory.getPlatformMBeanServer().registerMBean(this, candidate);
            name = candidate;
        } catch (Exception | LinkageError e) {
            LOG.log(Level.WARNING, "the context on " + device + " is not visible in JMX", e);
        }
    }

    void unregister() {
        try {
            if (name != null) {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            }
        } catch (Exception e) {
            LOG.log(Level.WARNING, "removing the JMX view of the context on " + device + " failed", e);
        }
    }

    /**
     * A channel is going: its final counters join the totals. Called before its native object is
     * destroyed and under the lock {@link #total()} holds, so a reading sees each channel exactly
     * once — in the open set or in the totals, never in neither (the gap a failing channel left).
     */
    synchronized void channelClosed(JniChannel channel) {
        if (!channel.countersJoined) {
            if (channel.finalCounters != null) {
                closed = closed.plus(channel.finalCounters);
            }
            channel.countersJoined = true;
        }
    }

    /** Closed channels' totals plus the open channels' counters now. */
    synchronized ChannelCounters total() {
        ChannelCounters sum = closed;
        for (JniChannel channel : openChannels.get()) {
            if (!channel.countersJoined) {
                sum = sum.plus(channel.counters());
            }
        }
        return sum;
    }

    @Override
    public String getDevice() {
        return device;
    }

    @Override
    public synchronized int getOpenChannels() {
        return (int) openChannels.get().stream().filter(channel -> !channel.countersJoined).count();
    }

    @Override
    public long getMessagesSent() {
        return total().messagesSent();
    }

    @Override
    public long getBytesSent() {
        return total().bytesSent();
    }

    @Override
    public long getMessagesReceived() {
        return total().messagesReceived();
    }

    @Override
    public long getBytesReceived() {
        return total().bytesReceived();
    }

    @Override
    public long getRendezvousSent() {
        return total().rendezvousSent();
    }

    @Override
    public long getRendezvousReceived() {
        return total().rendezvousReceived();
    }

    @Override
    public long getCreditStalls() {
        return total().creditStalls();
    }

    @Override
    public long getFailedOperations() {
        return total().failedOperations();
    }

    @Override
    public Map<String, Long> getErrorsByStatus() {
        return errorsByStatus();
    }

    @Override
    public Map<String, Long> getDeviceCounters() {
        return deviceCounters.get();
    }

    @Override
    public int getCompletionQueueResizes() {
        return cqResizes.getAsInt();
    }

    @Override
    public int getCompletionQueueCapacity() {
        return cqCapacity.getAsInt();
    }

    @Override
    public long getPoolBytes() {
        return poolBytes.getAsLong();
    }
}
