package org.jrdma;

import java.util.Objects;

/**
 * Builds an {@link RdmaConfig} ({@link RdmaConfig#builder()}, {@link RdmaConfig#toBuilder()}); each
 * setter checks its value at once and returns this builder. docs/configuration.md lists every option.
 */
public final class RdmaConfigBuilder {
    private final ConfigValues values;

    RdmaConfigBuilder(ConfigValues start) {
        this.values = start;
    }

    /** The values being built, for {@link EnvironmentVariables}, whose errors name the variables. */
    ConfigValues values() {
        return values;
    }

    /**
     * What carries the channels.
     * @param transport auto (default), verbs, tcp or shm
     * @return this builder
     */
    public RdmaConfigBuilder transport(Transport transport) {
        values.transport = Objects.requireNonNull(transport, "transport");
        return this;
    }

    /**
     * The device to open.
     * @param name a device name ({@code mlx5_0}, {@code rxe0})
     * @return this builder
     */
    public RdmaConfigBuilder device(String name) {
        values.device(name, "device");
        return this;
    }

    /**
     * The port to use (only together with {@link #device}).
     * @param port a 1-based port number, 1..255
     * @return this builder
     */
    public RdmaConfigBuilder port(int port) {
        values.port(port, "port");
        return this;
    }

    /**
     * The source GID.
     * @param index an index of a valid GID of the port, 0..65535
     * @return this builder
     */
    public RdmaConfigBuilder gidIndex(int index) {
        values.gidIndex(index, "gidIndex");
        return this;
    }

    /**
     * Upper bound of the queue pairs' path MTU.
     * @param bytes 256, 512, 1024, 2048 or 4096
     * @return this builder
     */
    public RdmaConfigBuilder mtu(int bytes) {
        values.mtu(bytes, "mtu");
        return this;
    }

    /**
     * The P_Key table index of the queue pairs.
     * @param index 0..65535
     * @return this builder
     */
    public RdmaConfigBuilder pkeyIndex(int index) {
        values.pkeyIndex(index, "pkeyIndex");
        return this;
    }

    /**
     * Work requests per queue of a channel, and the receive credits it announces.
     * @param depth 4..16384 (default 128)
     * @return this builder
     */
    public RdmaConfigBuilder queueDepth(int depth) {
        values.queueDepth(depth, "queueDepth");
        return this;
    }

    /**
     * Local ACK timeout; 0 (wait forever) is refused because it hides dead peers.
     * @param exponent 1..31: 4.096 us * 2^exponent (default 14, about 67 ms)
     * @return this builder
     */
    public RdmaConfigBuilder timeout(int exponent) {
        values.timeout(exponent, "timeout");
        return this;
    }

    /**
     * Transport retries; 7 (forever) is refused.
     * @param count 0..6 (default 6)
     * @return this builder
     */
    public RdmaConfigBuilder retryCount(int count) {
        values.retryCount(count, "retryCount");
        return this;
    }

    /**
     * Receiver-not-ready retries: a burst can find a {@link #sharedReceiveBuffers shared receive queue} empty.
     * @param count 0..7 (default 7: retry until the receiver re-posted; keepalive finds one that never does)
     * @return this builder
     */
    public RdmaConfigBuilder rnrRetry(int count) {
        values.rnrRetry(count);
        return this;
    }

    /**
     * The service level of the queue pairs' address.
     * @param sl 0..7
     * @return this builder
     */
    public RdmaConfigBuilder serviceLevel(int sl) {
        values.serviceLevel(sl, "serviceLevel");
        return this;
    }

    /**
     * The GRH traffic class byte of queue pairs and connection packets.
     * @param trafficClass 0..255
     * @return this builder
     */
    public RdmaConfigBuilder trafficClass(int trafficClass) {
        values.trafficClass(trafficClass, "trafficClass");
        return this;
    }

    /**
     * How the event loop waits for completions.
     * @param mode event, adaptive (default) or busy
     * @return this builder
     */
    public RdmaConfigBuilder pollMode(PollMode mode) {
        values.pollMode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /**
     * The longest spin of {@link PollMode#ADAPTIVE} before the loop arms the queue and sleeps. By
     * default (0) the loop learns it: ten wake-ups' worth of spinning as measured on this machine
     * (100 us to 10 ms); within it, the spin covers how soon work has followed activity lately.
     * @param micros 0..1000000 (default 0: learned)
     * @return this builder
     */
    public RdmaConfigBuilder adaptiveSpinMicros(int micros) {
        values.adaptiveSpinMicros(micros, "adaptiveSpinMicros");
        return this;
    }

    /**
     * Completion queue entries (default: sized for the queue pairs it serves).
     * @param entries 1..4194304
     * @return this builder
     */
    public RdmaConfigBuilder completionQueueSize(int entries) {
        values.completionQueueSize(entries);
        return this;
    }

    /**
     * Verbs: the first buffers of the shared receive queue of the context's channels of one {@link #eagerSize}
     * (docs/configuration.md); it doubles when low. 0: a receive queue of queueDepth buffers per queue pair.
     * @param buffers 0..16384 (default 512)
     * @return this builder
     */
    public RdmaConfigBuilder sharedReceiveBuffers(int buffers) {
        values.sharedReceiveBuffers(buffers, "sharedReceiveBuffers");
        return this;
    }

    /**
     * Bytes per receive buffer, its 16-byte header included: messages up to eagerSize - 16 are sent eagerly,
     * larger ones by rendezvous. Both ends of a channel must agree.
     * @param bytes 64..16777216 (default 4096)
     * @return this builder
     */
    public RdmaConfigBuilder eagerSize(int bytes) {
        values.eagerSize(bytes);
        return this;
    }

    /**
     * Bytes a send (its 16-byte header included) or write may carry inline, copied into the work request
     * rather than read by the device; capped by the largest value the device accepts for a queue pair.
     * @param bytes 0..1024 (default 236)
     * @return this builder
     */
    public RdmaConfigBuilder maxInline(int bytes) {
        values.maxInline(bytes);
        return this;
    }

    /**
     * How long address/route resolution and connecting may take.
     * @param millis 100..600000 (default 5000)
     * @return this builder
     */
    public RdmaConfigBuilder connectTimeoutMillis(int millis) {
        values.connectTimeoutMillis(millis);
        return this;
    }

    /**
     * The largest message this side receives, announced to the peer (whose sends above it are refused
     * locally); never below eagerSize - 16. Messages above eagerSize - 16 go by rendezvous.
     * @param bytes 1..2^31-1 (default 1 GiB)
     * @return this builder
     */
    public RdmaConfigBuilder maxMessageSize(int bytes) {
        values.maxMessageSize(bytes);
        return this;
    }

    /**
     * Rendezvous messages a channel reads at a time.
     * @param transfers 1..1024 (default 8)
     * @return this builder
     */
    public RdmaConfigBuilder rendezvousTransfers(int transfers) {
        values.rendezvousTransfers(transfers);
        return this;
    }

    /**
     * Bytes per READ of a rendezvous transfer, several at a time: larger chunks need fewer work requests,
     * smaller ones let the transfers of several channels take turns sooner.
     * @param bytes 4 KiB..1 GiB (default 1 MiB); a device reads at most its port's largest message at once
     * @return this builder
     */
    public RdmaConfigBuilder rendezvousChunkSize(int bytes) {
        values.rendezvousChunkSize(bytes);
        return this;
    }

    /**
     * Bytes a context reads by rendezvous at a time, over all its channels: a large message is given memory
     * only once its length fits (one larger than the whole budget goes alone).
     * @param bytes 1 MiB..1 TiB (default 256 MiB)
     * @return this builder
     */
    public RdmaConfigBuilder receiveBudget(long bytes) {
        values.receiveBudget(bytes);
        return this;
    }

    /**
     * Accepted connection requests not established yet, per listener (the listen's config) and per context;
     * each pins a queue pair and queueDepth * eagerSize bytes. Beyond: "too many connection requests pending".
     * @param requests 1..65535 (default 64)
     * @return this builder
     */
    public RdmaConfigBuilder maxPendingConnections(int requests) {
        values.maxPendingConnections(requests);
        return this;
    }

    /**
     * Silence after which a channel closes with {@link PeerSilentException}. Announced: the peer sends a
     * message at least every third of it when it has nothing else to send (an idle live channel stays open).
     * @param millis 0 (off) or 1000..3600000 (default 30000)
     * @return this builder
     */
    public RdmaConfigBuilder keepaliveMillis(int millis) {
        values.keepaliveMillis(millis);
        return this;
    }

    /**
     * How long operations may wait without one completing; then the channel closes and every one fails with
     * {@link OperationTimeoutException} (a posted RDMA operation cannot be withdrawn alone).
     * @param millis 0 (never fail) or 1000..86400000 (default 120000)
     * @return this builder
     */
    public RdmaConfigBuilder operationTimeoutMillis(int millis) {
        values.operationTimeoutMillis(millis);
        return this;
    }

    /**
     * The remote-memory agent's deadline and quota (checked when the AgentLimits is made).
     * @param limits the limits
     * @return this builder
     */
    public RdmaConfigBuilder agentLimits(AgentLimits limits) {
        values.agentLimits = Objects.requireNonNull(limits, "limits");
        return this;
    }

    /**
     * Mutual authentication with this key: both ends of every channel of the context prove they hold it
     * (HMAC-SHA256 over fresh nonces of both sides; the key never travels). Both ends need the same key.
     * @param key 16..1024 bytes (32 random bytes are a good key), or null for none
     * @return this builder
     */
    public RdmaConfigBuilder preSharedKey(byte[] key) {
        values.preSharedKey(key);
        return this;
    }

    /**
     * Checks the rules between values (a port needs a device).
     *
     * @return the configuration
     * @throws ConfigurationException when a rule is broken
     */
    public RdmaConfig build() {
        return new RdmaConfig(values.checkedCopy());
    }
}
