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

    private final String device;
    private final int port;
    private final int gidIndex;
    private final int mtu;
    private final int pkeyIndex;
    private final int queueDepth;
    private final int timeout;
    private final int retryCount;
    private final int rnrRetry;
    private final int serviceLevel;
    private final int trafficClass;
    private final boolean busyPoll;
    private final int completionQueueSize;
    private final int eagerSize;
    private final int maxInline;
    private final int connectTimeoutMillis;
    private final int maxMessageSize;
    private final int rendezvousTransfers;
    private final long receiveBudget;
    private final int maxPendingConnections;
    private final int keepaliveMillis;
    private final int operationTimeoutMillis;
    private final AgentLimits agentLimits;
    private final byte[] preSharedKey; // null: no authentication

    private RdmaConfig(Builder b) {
        if (b.port != 0 && b.device == null) {
            throw new ConfigurationException(b.portVariable + "=" + b.port + " is only allowed together with "
                    + (b.portVariable.equals("port") ? "device" : "RDMA_DEVICE") + " (name the device whose port you choose)");
        }
        this.device = b.device;
        this.port = b.port;
        this.gidIndex = b.gidIndex;
        this.mtu = b.mtu;
        this.pkeyIndex = b.pkeyIndex;
        this.queueDepth = b.queueDepth;
        this.timeout = b.timeout;
        this.retryCount = b.retryCount;
        this.rnrRetry = b.rnrRetry;
        this.serviceLevel = b.serviceLevel;
        this.trafficClass = b.trafficClass;
        this.busyPoll = b.busyPoll;
        this.completionQueueSize = b.completionQueueSize;
        this.eagerSize = b.eagerSize;
        this.maxInline = b.maxInline;
        this.connectTimeoutMillis = b.connectTimeoutMillis;
        this.maxMessageSize = Math.max(b.maxMessageSize, b.eagerSize - 16);
        this.rendezvousTransfers = b.rendezvousTransfers;
        this.receiveBudget = b.receiveBudget;
        this.maxPendingConnections = b.maxPendingConnections;
        this.keepaliveMillis = b.keepaliveMillis;
        this.operationTimeoutMillis = b.operationTimeoutMillis;
        this.agentLimits = b.agentLimits;
        this.preSharedKey = b.preSharedKey;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@return all defaults: the only device with an active port, its first active port, the port's GID and MTU} */
    public static RdmaConfig defaults() {
        return builder().build();
    }

    /** {@return the configuration the RDMA_* variables of this process's environment describe} */
    public static RdmaConfig fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    /** Reads the RDMA_* variables from {@code env}; unset or empty variables keep their defaults. */
    public static RdmaConfig fromEnvironment(Map<String, String> env) {
        return EnvironmentVariables.read(env, builder()).build();
    }

    /** {@return the device name, or null to pick the only device with an active port} */
    public String device() {
        return device;
    }

    /** {@return 1-based port, or 0 for the device's first active port} */
    public int port() {
        return port;
    }

    /** {@return GID index, or -1 to pick it (RoCE: the port's single routable RoCE v2 GID; InfiniBand: 0)} */
    public int gidIndex() {
        return gidIndex;
    }

    /** {@return path MTU in bytes, or 0 for the port's active MTU} */
    public int mtu() {
        return mtu;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** {@return work requests per queue pair (send and receive each)} */
    public int queueDepth() {
        return queueDepth;
    }

    /** {@return local ACK timeout exponent: 4.096 us * 2^timeout} */
    public int timeout() {
        return timeout;
    }

    public int retryCount() {
        return retryCount;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public int serviceLevel() {
        return serviceLevel;
    }

    public int trafficClass() {
        return trafficClass;
    }

    /** {@return whether the loop spins on the completion queue instead of sleeping (lowest latency, one core busy per context)} */
    public boolean busyPoll() {
        return busyPoll;
    }

    /** {@return completion queue entries, or 0 to size it for the queue pairs it serves} */
    public int completionQueueSize() {
        return completionQueueSize;
    }

    /** {@return bytes per receive buffer including the 16-byte header: messages up to eagerSize - 16 are sent eagerly} */
    public int eagerSize() {
        return eagerSize;
    }

    /**
     * Sends and writes of up to this many bytes (a send's 16-byte header included) are copied into the
     * work request instead of being read from registered memory by the device; the device's own limit
     * caps it (a queue pair is created with the largest value up to this that the device accepts).
     */
    public int maxInline() {
        return maxInline;
    }

    public int connectTimeoutMillis() {
        return connectTimeoutMillis;
    }

    /**
     * The largest message this side receives (announced to the peer, whose sends above it are refused
     * locally); never below eagerSize - 16. Messages above eagerSize - 16 go by rendezvous.
     */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** {@return rendezvous messages a channel reads at a time (announced: the peer starts no more)} */
    public int rendezvousTransfers() {
        return rendezvousTransfers;
    }

    /**
     * Bytes a context reads by rendezvous at a time, over all its channels: a large message is
     * given memory only once its length fits (one larger than the whole budget goes alone).
     */
    public long receiveBudget() {
        return receiveBudget;
    }

    /**
     * Connection requests a server accepts that are not established yet, per listener (the listen's
     * config) and per context (the context's config). Each pins a queue pair and a receive ring
     * ({@code queueDepth * eagerSize} bytes) until it is established or given up; beyond the limit a
     * request is rejected with "too many connection requests pending".
     */
    public int maxPendingConnections() {
        return maxPendingConnections;
    }

    /**
     * A channel whose peer sent nothing for this long closes with {@link PeerSilentException}; 0: not
     * watched. Announced in the handshake: the peer sends a message at least every third of it when
     * it has nothing else to send, so an idle but live channel stays open.
     */
    public int keepaliveMillis() {
        return keepaliveMillis;
    }

    /**
     * When a channel's operations wait this long without one of them completing (no credits or
     * answer from the peer, no completion from the device), the channel closes and every one fails
     * with {@link OperationTimeoutException}: a posted RDMA operation cannot be withdrawn alone. 0: never.
     */
    public int operationTimeoutMillis() {
        return operationTimeoutMillis;
    }

    /** {@return the remote-memory agent's deadline and the quota a peer gets ({@link AgentLimits#DEFAULTS})} */
    public AgentLimits agentLimits() {
        return agentLimits;
    }

    /**
     * The key both ends of every channel of this context prove they hold (HMAC-SHA256 over fresh
     * nonces of both sides; the key never travels), or null: no authentication. A copy.
     */
    public byte[] preSharedKey() {
        return preSharedKey == null ? null : preSharedKey.clone();
    }

    @Override
    public String toString() {
        return "RdmaConfig{device=" + (device == null ? "auto" : device) + ", port=" + (port == 0 ? "auto" : port)
                + ", gidIndex=" + (gidIndex < 0 ? "auto" : gidIndex) + ", mtu=" + (mtu == 0 ? "active" : mtu)
                + ", pkeyIndex=" + pkeyIndex + ", queueDepth=" + queueDepth + ", timeout=" + timeout
                + ", retryCount=" + retryCount + ", rnrRetry=" + rnrRetry + ", serviceLevel=" + serviceLevel
                + ", trafficClass=" + trafficClass + ", busyPoll=" + busyPoll + ", completionQueueSize="
                + (completionQueueSize == 0 ? "auto" : completionQueueSize) + ", eagerSize=" + eagerSize
                + ", maxInline=" + maxInline + ", connectTimeoutMillis=" + connectTimeoutMillis + ", maxMessageSize="
                + maxMessageSize + ", rendezvousTransfers=" + rendezvousTransfers + ", receiveBudget=" + receiveBudget + ", maxPendingConnections=" + maxPendingConnections
                + ", keepaliveMillis=" + keepaliveMillis
                + ", operationTimeoutMillis=" + operationTimeoutMillis + ", agentLimits=" + agentLimits
                + ", preSharedKey=" + (preSharedKey == null ? "none" : "set") + "}";
    }

    /** Builds a configuration; each setter checks its value at once. */
    public static final class Builder {
        private String device;
        private int port;
        private String portVariable = "port";
        private int gidIndex = -1;
        private int mtu;
        private int pkeyIndex;
        private int queueDepth = 128;
        private int timeout = 14;
        private int retryCount = 6;
        private int rnrRetry = 6;
        private int serviceLevel;
        private int trafficClass;
        private boolean busyPoll;
        private int completionQueueSize;
        private int eagerSize = 4096;
        private int maxInline = 236; // perftest's default for RC; small sends then need no DMA read of the payload
        private int connectTimeoutMillis = 5000;
        private int maxMessageSize = 1 << 30;
        private int rendezvousTransfers = 8;
        private long receiveBudget = 256L << 20;
        private int maxPendingConnections = 64;
        private int keepaliveMillis = 30000;
        private int operationTimeoutMillis = 120000;
        private AgentLimits agentLimits = AgentLimits.DEFAULTS;
        private byte[] preSharedKey;

        private Builder() {
        }

        public Builder device(String name) {
            return device(name, "device");
        }

        Builder device(String name, String variable) {
            Objects.requireNonNull(name, variable);
            if (name.isBlank() || !name.chars().allMatch(c -> c > ' ' && c < 127 && c != '/')) {
                throw new ConfigurationException(variable + "='" + name + "' is not a device name (e.g. mlx5_0, rxe0)");
            }
            this.device = name;
            return this;
        }

        public Builder port(int port) {
            return port(port, "port");
        }

        Builder port(int port, String variable) {
            this.port = range(variable, port, 1, 255, "a 1-based port number");
            this.portVariable = variable;
            return this;
        }

        public Builder gidIndex(int index) {
            return gidIndex(index, "gidIndex");
        }

        Builder gidIndex(int index, String variable) {
            this.gidIndex = range(variable, index, 0, 65535, "an index into the port's GID table");
            return this;
        }

        public Builder mtu(int bytes) {
            return mtu(bytes, "mtu");
        }

        Builder mtu(int bytes, String variable) {
            if (!MTUS.contains(bytes)) {
                throw new ConfigurationException(variable + "=" + bytes + " is not a verbs MTU; allowed: 256, 512, 1024, 2048, 4096");
            }
            this.mtu = bytes;
            return this;
        }

        public Builder pkeyIndex(int index) {
            return pkeyIndex(index, "pkeyIndex");
        }

        Builder pkeyIndex(int index, String variable) {
            this.pkeyIndex = range(variable, index, 0, 65535, "an index into the port's P_Key table");
            return this;
        }

        public Builder queueDepth(int depth) {
            return queueDepth(depth, "queueDepth");
        }

        Builder queueDepth(int depth, String variable) {
            this.queueDepth = range(variable, depth, 4, 16384, "work requests per queue and receive credits");
            return this;
        }

        public Builder timeout(int exponent) {
            return timeout(exponent, "timeout");
        }

        Builder timeout(int exponent, String variable) {
            if (exponent == 0) {
                throw new ConfigurationException(variable + "=0 means wait forever for an ACK and hides dead peers;"
                        + " allowed: 1..31 (4.096 us * 2^value; 14 is about 67 ms)");
            }
            this.timeout = range(variable, exponent, 1, 31, "4.096 us * 2^value");
            return this;
        }

        public Builder retryCount(int count) {
            return retryCount(count, "retryCount");
        }

        Builder retryCount(int count, String variable) {
            if (count == 7) {
                throw new ConfigurationException(variable + "=7 means retry forever (a dead peer is never detected); allowed: 0..6");
            }
            this.retryCount = range(variable, count, 0, 6, "transport retries");
            return this;
        }

        /** Receiver-not-ready retries (credits make RNR impossible in jrdma's own protocol; 7 would mean forever). */
        public Builder rnrRetry(int count) {
            if (count == 7) {
                throw new ConfigurationException("rnrRetry=7 means retry forever; allowed: 0..6");
            }
            this.rnrRetry = range("rnrRetry", count, 0, 6, "RNR retries");
            return this;
        }

        public Builder serviceLevel(int sl) {
            return serviceLevel(sl, "serviceLevel");
        }

        Builder serviceLevel(int sl, String variable) {
            this.serviceLevel = range(variable, sl, 0, 7, "a service level");
            return this;
        }

        public Builder trafficClass(int trafficClass) {
            return trafficClass(trafficClass, "trafficClass");
        }

        Builder trafficClass(int trafficClass, String variable) {
            this.trafficClass = range(variable, trafficClass, 0, 255, "the GRH traffic class byte");
            return this;
        }

        public Builder busyPoll(boolean busyPoll) {
            this.busyPoll = busyPoll;
            return this;
        }

        public Builder completionQueueSize(int entries) {
            this.completionQueueSize = range("completionQueueSize", entries, 1, 4_194_304, "completion queue entries");
            return this;
        }

        /** Bytes per receive buffer, header included; both ends of a channel must agree. */
        public Builder eagerSize(int bytes) {
            this.eagerSize = range("eagerSize", bytes, 64, 1 << 24, "bytes per receive buffer");
            return this;
        }

        /** Bytes a send (header included) or write may carry inline; capped by the device's limit. */
        public Builder maxInline(int bytes) {
            this.maxInline = range("maxInline", bytes, 0, 1024, "bytes");
            return this;
        }

        /** How long address/route resolution and connecting may take. */
        public Builder connectTimeoutMillis(int millis) {
            this.connectTimeoutMillis = range("connectTimeoutMillis", millis, 100, 600_000, "milliseconds");
            return this;
        }

        /** The largest message this side receives, 1..2^31-1 bytes (default 1 GiB). */
        public Builder maxMessageSize(int bytes) {
            this.maxMessageSize = range("maxMessageSize", bytes, 1, Integer.MAX_VALUE, "bytes");
            return this;
        }

        /** Rendezvous messages a channel reads at a time, 1..1024 (default 8). */
        public Builder rendezvousTransfers(int transfers) {
            this.rendezvousTransfers = range("rendezvousTransfers", transfers, 1, 1024, "transfers per channel");
            return this;
        }

        /** Bytes a context reads by rendezvous at a time, 1 MiB..1 TiB (default 256 MiB). */
        public Builder receiveBudget(long bytes) {
            if (bytes < (1L << 20) || bytes > (1L << 40)) {
                throw new ConfigurationException("receiveBudget=" + bytes + " is out of range; allowed: 1048576.."
                        + (1L << 40) + " (bytes being received at a time)");
            }
            this.receiveBudget = bytes;
            return this;
        }

        /** Accepted connection requests not established yet, per listener and per context, 1..65535 (default 64). */
        public Builder maxPendingConnections(int requests) {
            this.maxPendingConnections = range("maxPendingConnections", requests, 1, 65535, "connection requests");
            return this;
        }

        /** Silence after which a channel's peer is declared gone: 0 (off) or 1000..3600000 ms (default 30000). */
        public Builder keepaliveMillis(int millis) {
            if (millis != 0) {
                // The loop checks every 100 ms: a bound of ten checks at least.
                range("keepaliveMillis", millis, 1000, 3600000, "milliseconds, or 0 for off");
            }
            this.keepaliveMillis = millis;
            return this;
        }

        /** How long operations may wait without one completing: 0 (never fail) or 1000..86400000 ms (default 120000). */
        public Builder operationTimeoutMillis(int millis) {
            if (millis != 0) {
                range("operationTimeoutMillis", millis, 1000, 86400000, "milliseconds, or 0 for no bound");
            }
            this.operationTimeoutMillis = millis;
            return this;
        }

        /** The remote-memory agent's deadline and quota (checked when the AgentLimits is made). */
        public Builder agentLimits(AgentLimits limits) {
            this.agentLimits = java.util.Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** Mutual authentication with this key (16..1024 bytes; null: none); both ends need the same key. */
        public Builder preSharedKey(byte[] key) {
            if (key != null && (key.length < 16 || key.length > 1024)) {
                throw new ConfigurationException("preSharedKey of " + key.length + " bytes is out of range; allowed:"
                        + " 16..1024 bytes (use 32 random bytes)");
            }
            this.preSharedKey = key == null ? null : key.clone();
            return this;
        }

        public RdmaConfig build() {
            return new RdmaConfig(this);
        }

        private static int range(String variable, int value, int min, int max, String meaning) {
            if (value < min || value > max) {
                throw new ConfigurationException(variable + "=" + value + " is out of range; allowed: " + min + ".." + max
                        + " (" + meaning + ")");
            }
            return value;
        }
    }
}
