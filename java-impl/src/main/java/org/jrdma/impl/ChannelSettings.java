package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.jrdma.RdmaConfig;

/**
 * What a context's channels ask of their queue pairs and their peers, from the configuration and
 * the device selection, as one record that {@link NativeChannel#listen0} and
 * {@link NativeChannel#createChannel0} read: {@code ChannelSettings} in
 * native/src/protocol/channel_settings.h, native byte order, its layout checked at load
 * ({@link Layouts}): first what every transport's channels use, then the verbs queue pairs' part.
 * Every value comes from here (the configuration owns the defaults). Every validated option reaches
 * the queue pair: port (checked against the connection's), GID index (when configured; otherwise
 * rdma_cm's choice for the address), path MTU (the smaller of both ends' and the path's), P_Key
 * index, service level and traffic class; and what the channel announces to its peer: the largest
 * message it receives and the rendezvous transfers it reads at a time.
 *
 * <p>A field is one constant of {@link Field} (in the native order) and one line in the
 * constructor; offsets, the record's size and the layout line follow from the list ({@link RecordLayout}).
 */
final class ChannelSettings {
    /** The record's fields in native order, with their sizes in bytes. */
    enum Field {
        // What every transport's channels use.
        DEPTH(4), EAGER(4), MAX_MESSAGE(4), RENDEZVOUS(4), MAX_PENDING(4), KEEPALIVE_MS(4), OPERATION_TIMEOUT_MS(4),
        AGENT_TIMEOUT_MS(4), AGENT_QUOTA_BYTES(8), AGENT_QUOTA_COUNT(4), AUTH_TIMEOUT_MS(4), GRACEFUL_CLOSE_MS(4),
        READ_CHUNK(4),
        // What only the verbs transport's queue pairs use.
        MAX_INLINE(4), TIMEOUT(4), RETRY_COUNT(4), RNR_RETRY(4), PORT(4), GID_INDEX(4), MTU(4), PKEY_INDEX(4),
        SERVICE_LEVEL(4), TRAFFIC_CLASS(4);

        final int size;

        Field(int size) {
            this.size = size;
        }

        int offset() {
            return LAYOUT.offset(this);
        }
    }

    static final RecordLayout LAYOUT = new RecordLayout("settings", Field.values(),
            Arrays.stream(Field.values()).mapToInt(f -> f.size).toArray());
    static final int RECORD_BYTES = LAYOUT.bytes();

    /** Written once; read by every listen and channel creation of the context. */
    private final ByteBuffer record;
    private final byte[] preSharedKey;

    ChannelSettings(RdmaConfig config, DeviceSelection selection) {
        this.record = record(config, selection);
        this.preSharedKey = config.preSharedKey();
    }

    /** The record of a configuration and a device selection (a direct buffer in native byte order). */
    static ByteBuffer record(RdmaConfig config, DeviceSelection selection) {
        ByteBuffer r = ByteBuffer.allocateDirect(RECORD_BYTES).order(ByteOrder.nativeOrder());
        r.putInt(Field.DEPTH.offset(), config.queueDepth());
        r.putInt(Field.EAGER.offset(), config.eagerSize());
        r.putInt(Field.MAX_MESSAGE.offset(), config.maxMessageSize());
        r.putInt(Field.RENDEZVOUS.offset(), config.rendezvousTransfers());
        r.putInt(Field.MAX_PENDING.offset(), config.maxPendingConnections());
        r.putInt(Field.KEEPALIVE_MS.offset(), config.keepaliveMillis());
        r.putInt(Field.OPERATION_TIMEOUT_MS.offset(), config.operationTimeoutMillis());
        r.putInt(Field.AGENT_TIMEOUT_MS.offset(), config.agentLimits().timeoutMillis());
        r.putLong(Field.AGENT_QUOTA_BYTES.offset(), config.agentLimits().quotaBytes());
        r.putInt(Field.AGENT_QUOTA_COUNT.offset(), config.agentLimits().quotaCount());
        r.putInt(Field.AUTH_TIMEOUT_MS.offset(), config.connectTimeoutMillis());
        r.putInt(Field.GRACEFUL_CLOSE_MS.offset(), gracefulCloseMillis(config.timeout(), config.retryCount()));
        r.putInt(Field.READ_CHUNK.offset(), config.rendezvousChunkSize());
        r.putInt(Field.MAX_INLINE.offset(), config.maxInline());
        r.putInt(Field.TIMEOUT.offset(), config.timeout());
        r.putInt(Field.RETRY_COUNT.offset(), config.retryCount());
        r.putInt(Field.RNR_RETRY.offset(), config.rnrRetry());
        r.putInt(Field.PORT.offset(), selection.port().number());
        r.putInt(Field.GID_INDEX.offset(), config.gidIndex() >= 0 ? selection.gidIndex() : -1);
        r.putInt(Field.MTU.offset(), selection.mtu());
        r.putInt(Field.PKEY_INDEX.offset(), config.pkeyIndex());
        r.putInt(Field.SERVICE_LEVEL.offset(), config.serviceLevel());
        r.putInt(Field.TRAFFIC_CLASS.offset(), config.trafficClass());
        return r;
    }

    /**
     * How long a graceful close waits for posted operations: twice the transport's own give-up time
     * (4.096 µs × 2^timeout per try, retryCount + 1 tries), at least 2 s, at most an hour. Posted
     * operations normally complete or fail well within it; should the device never report them, the
     * channel closes anyway.
     */
    static int gracefulCloseMillis(int timeout, int retryCount) {
        double ackTimeoutMillis = 4.096e-3 * Math.pow(2, Math.min(timeout, 31));
        double millis = 2 * ackTimeoutMillis * (retryCount + 1);
        return millis < 2000 ? 2000 : millis > 3.6e6 ? 3_600_000 : (int) millis;
    }

    static String layout() {
        return LAYOUT.line();
    }

    long createChannel(long context) {
        return NativeChannel.createChannel0(context, record, preSharedKey);
    }

    long listen(long context, String ip, int ipPort, int backlog, boolean admission) {
        return NativeChannel.listen0(context, ip, ipPort, backlog, admission, record, preSharedKey);
    }
}
