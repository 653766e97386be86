package org.jrdma;

import java.util.Map;

/**
 * The RDMA_* environment variables of TensorFlow's verbs transport ({@link RdmaConfig#fromEnvironment()}):
 * each is checked as its builder method checks it, and an error names the variable.
 */
final class EnvironmentVariables {
    private EnvironmentVariables() {
    }

    /** Sets what the RDMA_* variables of {@code env} say on {@code b}; unset or empty ones are left alone. */
    static RdmaConfigBuilder read(Map<String, String> env, RdmaConfigBuilder b) {
        String device = value(env, "RDMA_DEVICE");
        if (device != null) {
            b.values().device(device, "RDMA_DEVICE");
        }
        Integer v;
        if ((v = integer(env, "RDMA_DEVICE_PORT")) != null) {
            b.values().port(v, "RDMA_DEVICE_PORT");
        }
        if ((v = integer(env, "RDMA_GID_INDEX")) != null) {
            b.values().gidIndex(v, "RDMA_GID_INDEX");
        }
        if ((v = integer(env, "RDMA_MTU")) != null) {
            b.values().mtu(v, "RDMA_MTU");
        }
        if ((v = integer(env, "RDMA_PKEY")) != null) {
            b.values().pkeyIndex(v, "RDMA_PKEY");
        }
        if ((v = integer(env, "RDMA_QUEUE_DEPTH")) != null) {
            b.values().queueDepth(v, "RDMA_QUEUE_DEPTH");
        }
        if ((v = integer(env, "RDMA_TIMEOUT")) != null) {
            b.values().timeout(v, "RDMA_TIMEOUT");
        }
        if ((v = integer(env, "RDMA_RETRY_CNT")) != null) {
            b.values().retryCount(v, "RDMA_RETRY_CNT");
        }
        if ((v = integer(env, "RDMA_SL")) != null) {
            b.values().serviceLevel(v, "RDMA_SL");
        }
        if ((v = integer(env, "RDMA_TRAFFIC_CLASS")) != null) {
            b.values().trafficClass(v, "RDMA_TRAFFIC_CLASS");
        }
        String transport = value(env, "RDMA_TRANSPORT");
        if (transport != null) {
            b.values().transport(transport, "RDMA_TRANSPORT");
        }
        String pollMode = value(env, "RDMA_POLL_MODE");
        if (pollMode != null) {
            b.values().pollMode(pollMode, "RDMA_POLL_MODE");
        }
        if ((v = integer(env, "RDMA_ADAPTIVE_SPIN_US")) != null) {
            b.values().adaptiveSpinMicros(v, "RDMA_ADAPTIVE_SPIN_US");
        }
        if ((v = integer(env, "RDMA_SHARED_RECEIVE_BUFFERS")) != null) {
            b.values().sharedReceiveBuffers(v, "RDMA_SHARED_RECEIVE_BUFFERS");
        }
        return b;
    }

    private static String value(Map<String, String> env, String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static Integer integer(Map<String, String> env, String name) {
        String value = value(env, name);
        if (value == null) {
            return null;
        }
        try {
            return Integer.valueOf(value);
        } catch (NumberFormatException e) {
            throw new ConfigurationException(name + "='" + value + "' is not an integer");
        }
    }
}
