package org.jrdma;

import java.util.Objects;

/**
 * The values of an {@link RdmaConfig} and the rule of each: every setter checks its value and
 * names the variable it came from (a builder method or an RDMA_* environment variable) in the
 * {@link ConfigurationException}. The builder fills one; the configuration keeps a copy.
 */
final class ConfigValues implements Cloneable {
    Transport transport = Transport.AUTO;
    String device;
    int port;
    String portVariable = "port";
    int gidIndex = -1;
    int mtu;
    int pkeyIndex;
    int queueDepth = 128;
    int timeout = 14;
    int retryCount = 6;
    int rnrRetry = 7; // forever: a shared receive queue can be empty for a moment (docs/configuration.md)
    int serviceLevel;
    int trafficClass;
    PollMode pollMode = PollMode.ADAPTIVE;
    int adaptiveSpinMicros = 0; // learned (context/adaptive_spin.h)
    int completionQueueSize;
    int sharedReceiveBuffers = 512;
    int eagerSize = 4096;
    int maxInline = 236; // perftest's default for RC; small sends then need no DMA read of the payload
    int connectTimeoutMillis = 5000;
    int maxMessageSize = 1 << 30;
    int rendezvousTransfers = 8;
    int rendezvousChunkSize = 1 << 20;
    long receiveBudget = 256L << 20;
    int maxPendingConnections = 64;
    int keepaliveMillis = 30000;
    int operationTimeoutMillis = 120000;
    AgentLimits agentLimits = AgentLimits.DEFAULTS;
    byte[] preSharedKey; // null: no authentication

    void device(String name, String variable) {
        Objects.requireNonNull(name, variable);
        if (name.isBlank() || !name.chars().allMatch(c -> c > ' ' && c < 127 && c != '/')) {
            throw new ConfigurationException(variable + "='" + name + "' is not a device name (e.g. mlx5_0, rxe0)");
        }
        this.device = name;
    }

    void port(int value, String variable) {
        this.port = range(variable, value, 1, 255, "a 1-based port number");
        this.portVariable = variable;
    }

    void gidIndex(int value, String variable) {
        this.gidIndex = range(variable, value, 0, 65535, "an index into the port's GID table");
    }

    void mtu(int bytes, String variable) {
        if (!RdmaConfig.MTUS.contains(bytes)) {
            throw new ConfigurationException(variable + "=" + bytes + " is not a verbs MTU; allowed: 256, 512, 1024, 2048, 4096");
        }
        this.mtu = bytes;
    }

    void pkeyIndex(int value, String variable) {
        this.pkeyIndex = range(variable, value, 0, 65535, "an index into the port's P_Key table");
    }

    void queueDepth(int value, String variable) {
        this.queueDepth = range(variable, value, 4, 16384, "work requests per queue and receive credits");
    }

    void timeout(int exponent, String variable) {
        if (exponent == 0) {
            throw new ConfigurationException(variable + "=0 means wait forever for an ACK and hides dead peers;"
                    + " allowed: 1..31 (4.096 us * 2^value; 14 is about 67 ms)");
        }
        this.timeout = range(variable, exponent, 1, 31, "4.096 us * 2^value");
    }

    void retryCount(int count, String variable) {
        if (count == 7) {
            throw new ConfigurationException(variable + "=7 means retry forever (a dead peer is never detected); allowed: 0..6");
        }
        this.retryCount = range(variable, count, 0, 6, "transport retries");
    }

    void rnrRetry(int count) {
        this.rnrRetry = range("rnrRetry", count, 0, 7, "RNR retries (7: until the receiver has a buffer)");
    }

    void serviceLevel(int sl, String variable) {
        this.serviceLevel = range(variable, sl, 0, 7, "a service level");
    }

    void trafficClass(int value, String variable) {
        this.trafficClass = range(variable, value, 0, 255, "the GRH traffic class byte");
    }

    void transport(String value, String variable) {
        for (Transport t : Transport.values()) {
            if (t.name().equalsIgnoreCase(value)) {
                this.transport = t;
                return;
            }
        }
        throw new ConfigurationException(variable + "='" + value + "' is not a transport; allowed: auto, verbs, tcp, shm");
    }

    void pollMode(String value, String variable) {
        if (PollMode.CALLER.name().equalsIgnoreCase(value)) {
            throw new ConfigurationException(variable + "='" + value + "': caller needs a program that calls "
                    + "RdmaContext.progress; set it in code (RdmaConfig.builder().pollMode(PollMode.CALLER))");
        }
        for (PollMode mode : PollMode.values()) {
            if (mode.name().equalsIgnoreCase(value)) {
                this.pollMode = mode;
                return;
            }
        }
        throw new ConfigurationException(variable + "='" + value + "' is not a poll mode; allowed: event, adaptive, busy");
    }

    void adaptiveSpinMicros(int micros, String variable) {
        this.adaptiveSpinMicros = range(variable, micros, 0, 1_000_000, "microseconds the loop may spin before it sleeps, 0: learned");
    }

    void completionQueueSize(int entries) {
        this.completionQueueSize = range("completionQueueSize", entries, 1, 4_194_304, "completion queue entries");
    }

    void sharedReceiveBuffers(int buffers, String variable) {
        this.sharedReceiveBuffers = range(variable, buffers, 0, 16_384, "buffers of a shared receive queue, 0: none");
    }

    void eagerSize(int bytes) {
        this.eagerSize = range("eagerSize", bytes, 64, 1 << 24, "bytes per receive buffer");
    }

    void maxInline(int bytes) {
        this.maxInline = range("maxInline", bytes, 0, 1024, "bytes");
    }

    void connectTimeoutMillis(int millis) {
        this.connectTimeoutMillis = range("connectTimeoutMillis", millis, 100, 600_000, "milliseconds");
    }

    void maxMessageSize(int bytes) {
        this.maxMessageSize = range("maxMessageSize", bytes, 1, Integer.MAX_VALUE, "bytes");
    }

    void rendezvousTransfers(int transfers) {
        this.rendezvousTransfers = range("rendezvousTransfers", transfers, 1, 1024, "transfers per channel");
    }

    void rendezvousChunkSize(int bytes) {
        this.rendezvousChunkSize = range("rendezvousChunkSize", bytes, 4096, 1 << 30, "bytes per READ of a rendezvous transfer");
    }

    void receiveBudget(long bytes) {
        if (bytes < (1L << 20) || bytes > (1L << 40)) {
            throw new ConfigurationException("receiveBudget=" + bytes + " is out of range; allowed: 1048576.."
                    + (1L << 40) + " (bytes being received at a time)");
        }
        this.receiveBudget = bytes;
    }

    void maxPendingConnections(int requests) {
        this.maxPendingConnections = range("maxPendingConnections", requests, 1, 65535, "connection requests");
    }

    void keepaliveMillis(int millis) {
        if (millis != 0) {
            // The loop checks every 100 ms: a bound of ten checks at least.
            range("keepaliveMillis", millis, 1000, 3600000, "milliseconds, or 0 for off");
        }
        this.keepaliveMillis = millis;
    }

    void operationTimeoutMillis(int millis) {
        if (millis != 0) {
            range("operationTimeoutMillis", millis, 1000, 86400000, "milliseconds, or 0 for no bound");
        }
        this.operationTimeoutMillis = millis;
    }

    void preSharedKey(byte[] key) {
        if (key != null && (key.length < 16 || key.length > 1024)) {
            throw new ConfigurationException("preSharedKey of " + key.length + " bytes is out of range; allowed:"
                    + " 16..1024 bytes (use 32 random bytes)");
        }
        this.preSharedKey = key == null ? null : key.clone();
    }

    /** The rules between values, checked when the configuration is built; returns a copy to keep. */
    ConfigValues checkedCopy() {
        if (port != 0 && device == null) {
            throw new ConfigurationException(portVariable + "=" + port + " is only allowed together with "
                    + (portVariable.equals("port") ? "device" : "RDMA_DEVICE") + " (name the device whose port you choose)");
        }
        try {
            ConfigValues copy = (ConfigValues) clone();
            copy.maxMessageSize = Math.max(maxMessageSize, eagerSize - 16);
            copy.preSharedKey = preSharedKey == null ? null : preSharedKey.clone();
            return copy;
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public String toString() {
        return "RdmaConfig{transport=" + transport + ", device=" + (device == null ? "auto" : device) + ", port=" + (port == 0 ? "auto" : port)
                + ", gidIndex=" + (gidIndex < 0 ? "auto" : gidIndex) + ", mtu=" + (mtu == 0 ? "active" : mtu)
                + ", pkeyIndex=" + pkeyIndex + ", queueDepth=" + queueDepth + ", timeout=" + timeout
                + ", retryCount=" + retryCount + ", rnrRetry=" + rnrRetry + ", serviceLevel=" + serviceLevel
                + ", trafficClass=" + trafficClass + ", pollMode=" + pollMode
                + (pollMode == PollMode.ADAPTIVE ? ", adaptiveSpinMicros=" + (adaptiveSpinMicros == 0 ? "learned" : adaptiveSpinMicros) : "")
                + ", completionQueueSize=" + (completionQueueSize == 0 ? "auto" : completionQueueSize)
                + ", sharedReceiveBuffers=" + sharedReceiveBuffers
                + ", eagerSize=" + eagerSize + ", maxInline=" + maxInline + ", connectTimeoutMillis=" + connectTimeoutMillis
                + ", maxMessageSize=" + maxMessageSize + ", rendezvousTransfers=" + rendezvousTransfers
                + ", rendezvousChunkSize=" + rendezvousChunkSize
                + ", receiveBudget=" + receiveBudget + ", maxPendingConnections=" + maxPendingConnections
                + ", keepaliveMillis=" + keepaliveMillis + ", operationTimeoutMillis=" + operationTimeoutMillis
                + ", agentLimits=" + agentLimits + ", preSharedKey=" + (preSharedKey == null ? "none" : "set") + "}";
    }

    private static int range(String variable, int value, int min, int max, String meaning) {
        if (value < min || value > max) {
            throw new ConfigurationException(variable + "=" + value + " is out of range; allowed: " + min + ".." + max
                    + " (" + meaning + ")");
        }
        return value;
    }
}
