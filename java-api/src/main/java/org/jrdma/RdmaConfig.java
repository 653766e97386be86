package org.jrdma;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How a context picks its device and sets up its queue pairs. Build it in code or read it from the
 * environment with the variable names of TensorFlow's verbs transport ({@link #fromEnvironment()}).
 * Every value is checked when set; rules that need the device (does it exist, is the port active,
 * which GID, MTU against the port) are checked by {@link Rdma#open(RdmaConfig)}. Every violation is a
 * {@link ConfigurationException} naming the variable, the bad value and what is allowed.
 * docs/configuration.md lists every option.
 */
public final class RdmaConfig {
    /** The MTUs verbs knows. */
    public static final Set<Integer> MTUS = Set.of(256, 512, 1024, 2048, 4096);

    private final ConfigValues v;

    RdmaConfig(ConfigValues checked) {
        this.v = checked;
    }

    /** {@return a builder holding the defaults} */
    public static RdmaConfigBuilder builder() {
        return new RdmaConfigBuilder(new ConfigValues());
    }

    /** {@return a builder holding this configuration's values, to derive another configuration from it} */
    public RdmaConfigBuilder toBuilder() {
        return new RdmaConfigBuilder(v.checkedCopy());
    }

    /** {@return all defaults: the only device with an active port, its first active port, the port's GID and MTU} */
    public static RdmaConfig defaults() {
        return builder().build();
    }

    /** {@return the configuration the RDMA_* variables of this process's environment describe} */
    public static RdmaConfig fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    /**
     * Reads the RDMA_* variables from {@code env}; unset or empty variables keep their defaults.
     *
     * @param env the variables, as {@link System#getenv()} gives them
     * @return the configuration they describe
     * @throws ConfigurationException naming the first variable with a bad value
     */
    public static RdmaConfig fromEnvironment(Map<String, String> env) {
        return EnvironmentVariables.read(env, builder()).build();
    }

    /** {@return what carries the channels (default {@link Transport#AUTO})} */
    public Transport transport() {
        return v.transport;
    }

    /** {@return the device name, or null to pick the only device with an active port} */
    public String device() {
        return v.device;
    }

    /** {@return 1-based port, or 0 for the device's first active port} */
    public int port() {
        return v.port;
    }

    /** {@return GID index, or -1 to pick it (RoCE: the port's single routable RoCE v2 GID; InfiniBand: 0)} */
    public int gidIndex() {
        return v.gidIndex;
    }

    /** {@return path MTU in bytes, or 0 for the port's active MTU} */
    public int mtu() {
        return v.mtu;
    }

    /** {@return the P_Key table index of the queue pairs} */
    public int pkeyIndex() {
        return v.pkeyIndex;
    }

    /** {@return work requests per queue pair (send and receive each)} */
    public int queueDepth() {
        return v.queueDepth;
    }

    /** {@return local ACK timeout exponent: 4.096 us * 2^timeout} */
    public int timeout() {
        return v.timeout;
    }

    /** {@return transport retries before an operation fails with RETRY_EXC_ERR} */
    public int retryCount() {
        return v.retryCount;
    }

    /** {@return receiver-not-ready retries} */
    public int rnrRetry() {
        return v.rnrRetry;
    }

    /** {@return the service level of the queue pairs' address} */
    public int serviceLevel() {
        return v.serviceLevel;
    }

    /** {@return the GRH traffic class byte (the IP TOS on RoCE v2)} */
    public int trafficClass() {
        return v.trafficClass;
    }

    /** {@return how the event loop waits for completions (default {@link PollMode#ADAPTIVE})} */
    public PollMode pollMode() {
        return v.pollMode;
    }

    /** {@return the longest adaptive spin in microseconds, 0: learned ({@link RdmaConfigBuilder#adaptiveSpinMicros})} */
    public int adaptiveSpinMicros() {
        return v.adaptiveSpinMicros;
    }

    /** {@return completion queue entries, or 0 to size it for the queue pairs it serves} */
    public int completionQueueSize() {
        return v.completionQueueSize;
    }

    /** {@return the first buffers of the shared receive queue, 0: none ({@link RdmaConfigBuilder#sharedReceiveBuffers})} */
    public int sharedReceiveBuffers() {
        return v.sharedReceiveBuffers;
    }

    /** {@return bytes per receive buffer, its 16-byte header included ({@link RdmaConfigBuilder#eagerSize})} */
    public int eagerSize() {
        return v.eagerSize;
    }

    /** {@return the bytes a send or write carries inline at most ({@link RdmaConfigBuilder#maxInline})} */
    public int maxInline() {
        return v.maxInline;
    }

    /** {@return how long address and route resolution and connecting may take, in milliseconds} */
    public int connectTimeoutMillis() {
        return v.connectTimeoutMillis;
    }

    /** {@return the largest message in bytes this side receives ({@link RdmaConfigBuilder#maxMessageSize})} */
    public int maxMessageSize() {
        return v.maxMessageSize;
    }

    /** {@return rendezvous messages a channel reads at a time (announced: the peer starts no more)} */
    public int rendezvousTransfers() {
        return v.rendezvousTransfers;
    }

    /** {@return bytes per READ of a rendezvous transfer ({@link RdmaConfigBuilder#rendezvousChunkSize})} */
    public int rendezvousChunkSize() {
        return v.rendezvousChunkSize;
    }

    /** {@return bytes a context reads by rendezvous at a time ({@link RdmaConfigBuilder#receiveBudget})} */
    public long receiveBudget() {
        return v.receiveBudget;
    }

    /** {@return the limit of pending connection requests ({@link RdmaConfigBuilder#maxPendingConnections})} */
    public int maxPendingConnections() {
        return v.maxPendingConnections;
    }

    /** {@return the peer's longest silence in ms, 0: not watched ({@link RdmaConfigBuilder#keepaliveMillis})} */
    public int keepaliveMillis() {
        return v.keepaliveMillis;
    }

    /** {@return the longest wait for an operation in ms, 0: never ({@link RdmaConfigBuilder#operationTimeoutMillis})} */
    public int operationTimeoutMillis() {
        return v.operationTimeoutMillis;
    }

    /** {@return the remote-memory agent's deadline and the quota a peer gets ({@link AgentLimits#DEFAULTS})} */
    public AgentLimits agentLimits() {
        return v.agentLimits;
    }

    /** {@return a copy of the pre-shared key, or null: no authentication ({@link RdmaConfigBuilder#preSharedKey})} */
    public byte[] preSharedKey() {
        return v.preSharedKey == null ? null : v.preSharedKey.clone();
    }

    @Override
    public String toString() {
        return v.toString();
    }
}
