package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jrdma.RdmaConfig;

/**
 * What a context's channels ask of their queue pairs and their peers, from the configuration and
 * the device selection, as one record that {@link NativeChannel#listen0} and
 * {@link NativeChannel#createChannel0} read: {@code ChannelSettings} in
 * native/src/protocol/channel_settings.h, native byte order, its layout checked at load
 * ({@link Layouts}): first what every transport's channels use, then the verbs queue pairs' part. Every value comes from here (the configuration owns the defaults). Every
 * validated option reaches the queue pair: port (checked against the connection's), GID index (when
 * configured; otherwise rdma_cm's choice for the address), path MTU (the smaller of both ends' and
 * the path's), P_Key index, service level and traffic class; and what the channel announces to its
 * peer: the largest message it receives and the rendezvous transfers it reads at a time.
 */
final class ChannelSettings {
    static final int RECORD_BYTES = 88;
    // What every transport's channels use.
    static final int DEPTH = 0;
    static final int EAGER = 4;
    static final int MAX_MESSAGE = 8;
    static final int RENDEZVOUS = 12;
    static final int MAX_PENDING = 16;
    static final int KEEPALIVE_MS = 20;
    static final int OPERATION_TIMEOUT_MS = 24;
    static final int AGENT_TIMEOUT_MS = 28;
    static final int AGENT_QUOTA_BYTES = 32;
    static final int AGENT_QUOTA_COUNT = 40;
    static final int AUTH_TIMEOUT_MS = 44;
    // What only the verbs transport's queue pairs use.
    static final int MAX_INLINE = 48;
    static final int TIMEOUT = 52;
    static final int RETRY_COUNT = 56;
    static final int RNR_RETRY = 60;
    static final int PORT = 64;
    static final int GID_INDEX = 68;
    static final int MTU = 72;
    static final int PKEY_INDEX = 76;
    static final int SERVICE_LEVEL = 80;
    static final int TRAFFIC_CLASS = 84;

    /** Written once; read by every listen and channel creation of the context. */
    private final ByteBuffer record;
    private final byte[] preSharedKey;

    ChannelSettings(RdmaConfig config, DeviceSelection selection) {
        ByteBuffer r = ByteBuffer.allocateDirect(RECORD_BYTES).order(ByteOrder.nativeOrder());
        r.putInt(DEPTH, config.queueDepth());
        r.putInt(EAGER, config.eagerSize());
        r.putInt(MAX_MESSAGE, config.maxMessageSize());
        r.putInt(RENDEZVOUS, config.rendezvousTransfers());
        r.putInt(MAX_PENDING, config.maxPendingConnections());
        r.putInt(KEEPALIVE_MS, config.keepaliveMillis());
        r.putInt(OPERATION_TIMEOUT_MS, config.operationTimeoutMillis());
        r.putInt(AGENT_TIMEOUT_MS, config.agentLimits().timeoutMillis());
        r.putLong(AGENT_QUOTA_BYTES, config.agentLimits().quotaBytes());
        r.putInt(AGENT_QUOTA_COUNT, config.agentLimits().quotaCount());
        r.putInt(AUTH_TIMEOUT_MS, config.connectTimeoutMillis());
        r.putInt(MAX_INLINE, config.maxInline());
        r.putInt(TIMEOUT, config.timeout());
        r.putInt(RETRY_COUNT, config.retryCount());
        r.putInt(RNR_RETRY, config.rnrRetry());
        r.putInt(PORT, selection.port().number());
        r.putInt(GID_INDEX, config.gidIndex() >= 0 ? selection.gidIndex() : -1);
        r.putInt(MTU, selection.mtu());
        r.putInt(PKEY_INDEX, config.pkeyIndex());
        r.putInt(SERVICE_LEVEL, config.serviceLevel());
        r.putInt(TRAFFIC_CLASS, config.trafficClass());
        this.record = r;
        this.preSharedKey = config.preSharedKey();
    }

    static String layout() {
        return "settings size=" + RECORD_BYTES + ",depth=" + DEPTH + ",eager=" + EAGER + ",max_message=" + MAX_MESSAGE
                + ",rendezvous=" + RENDEZVOUS + ",max_pending=" + MAX_PENDING + ",keepalive_ms=" + KEEPALIVE_MS
                + ",operation_timeout_ms=" + OPERATION_TIMEOUT_MS + ",agent_timeout_ms=" + AGENT_TIMEOUT_MS
                + ",agent_quota_bytes=" + AGENT_QUOTA_BYTES + ",agent_quota_count=" + AGENT_QUOTA_COUNT
                + ",auth_timeout_ms=" + AUTH_TIMEOUT_MS + ",max_inline=" + MAX_INLINE + ",timeout=" + TIMEOUT
                + ",retry_count=" + RETRY_COUNT + ",rnr_retry=" + RNR_RETRY + ",port=" + PORT + ",gid_index="
                + GID_INDEX + ",mtu=" + MTU + ",pkey_index=" + PKEY_INDEX + ",service_level=" + SERVICE_LEVEL
                + ",traffic_class=" + TRAFFIC_CLASS;
    }

    long createChannel(long context) {
        return NativeChannel.createChannel0(context, record, preSharedKey);
    }

    long listen(long context, String ip, int ipPort, int backlog, boolean admission) {
        return NativeChannel.listen0(context, ip, ipPort, backlog, admission, record, preSharedKey);
    }
}
