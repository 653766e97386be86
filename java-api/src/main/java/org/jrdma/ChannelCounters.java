package org.jrdma;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a channel did so far ({@link RdmaChannel#counters()}): a snapshot, counted by the native
 * engine under the lock it already holds, so counting adds nothing to the hot path.
 */
public final class ChannelCounters {
    /** The counters, in the order the native library reports them (checked when it loads). */
    public static final List<String> NAMES = List.of("messagesSent", "bytesSent", "messagesReceived", "bytesReceived",
            "rendezvousSent", "rendezvousReceived", "writes", "reads", "atomics", "creditStalls", "failedOperations",
            "creditMessages");

    private final long[] values;

    /**
     * Counters from values.
     *
     * @param values the values in {@link #NAMES}' order (copied)
     */
    public ChannelCounters(long[] values) {
        if (values.length != NAMES.size()) {
            throw new IllegalArgumentException(values.length + " counter values for " + NAMES.size() + " counters");
        }
        this.values = values.clone();
    }

    /** {@return messages posted, eager and by rendezvous} */
    public long messagesSent() {
        return values[0];
    }

    /** {@return payload bytes of the messages sent} */
    public long bytesSent() {
        return values[1];
    }

    /** {@return messages received complete (delivered to the handler or into a posted receive)} */
    public long messagesReceived() {
        return values[2];
    }

    /** {@return payload bytes of the messages received} */
    public long bytesReceived() {
        return values[3];
    }

    /** {@return the messages sent that the peer read by rendezvous} */
    public long rendezvousSent() {
        return values[4];
    }

    /** {@return the messages received that were read from the peer by rendezvous} */
    public long rendezvousReceived() {
        return values[5];
    }

    /** {@return RDMA writes (with and without immediate) posted} */
    public long writes() {
        return values[6];
    }

    /** {@return RDMA reads the application posted} */
    public long reads() {
        return values[7];
    }

    /** {@return compare-and-swaps and fetch-and-adds posted} */
    public long atomics() {
        return values[8];
    }

    /** {@return operations that could not be posted at once and waited in the channel's queue (for a credit, a send slot, or earlier ones)} */
    public long creditStalls() {
        return values[9];
    }

    /** {@return operations the engine reported with an error (those failed by the channel's close are not counted)} */
    public long failedOperations() {
        return values[10];
    }

    /** {@return explicit credit messages sent (credit returns and keepalives)} */
    public long creditMessages() {
        return values[11];
    }

    /**
     * This and {@code other} counter by counter (e.g. the sums over several channels).
     *
     * @param other more counters
     * @return the sums
     */
    public ChannelCounters plus(ChannelCounters other) {
        long[] sum = values.clone();
        for (int i = 0; i < sum.length; i++) {
            sum[i] += other.values[i];
        }
        return new ChannelCounters(sum);
    }

    /** {@return each counter's name and value, in {@link #NAMES}' order} */
    public Map<String, Long> asMap() {
        Map<String, Long> map = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            map.put(NAMES.get(i), values[i]);
        }
        return map;
    }

    @Override
    public String toString() {
        return "ChannelCounters" + asMap();
    }
}
