package org.jrdma.impl;

import org.jrdma.RdmaConfig;

/**
 * What a context's channels ask of their queue pairs, from the configuration and the device
 * selection, in the order {@link NativeChannel#listen0} and {@link NativeChannel#createChannel0}
 * take them (native/src/jni/channel_natives.cc, JRDMA_CHANNEL_SETTINGS). Every validated option
 * reaches the queue pair: port (checked against the connection's), GID index (when configured;
 * otherwise rdma_cm's choice for the address), path MTU (the smaller of both ends' and the path's),
 * P_Key index, service level and traffic class; and what the channel announces to its peer: the
 * largest message it receives and the rendezvous transfers it reads at a time.
 */
final class ChannelSettings {
    private final RdmaConfig config;
    private final int port;
    private final int gidIndex;
    private final int mtu;

    ChannelSettings(RdmaConfig config, DeviceSelection selection) {
        this.config = config;
        this.port = selection.port().number();
        this.gidIndex = config.gidIndex() >= 0 ? selection.gidIndex() : -1;
        this.mtu = selection.mtu();
    }

    long createChannel(long context) {
        return NativeChannel.createChannel0(context, config.queueDepth(), config.eagerSize(), config.maxInline(),
                config.timeout(), config.retryCount(), config.rnrRetry(), port, gidIndex, mtu, config.pkeyIndex(),
                config.serviceLevel(), config.trafficClass(), config.maxMessageSize(), config.rendezvousTransfers(),
                config.maxPendingConnections(), config.keepaliveMillis(),
                config.operationTimeoutMillis(), config.agentLimits().timeoutMillis(), config.agentLimits().quotaBytes(),
                config.agentLimits().quotaCount(), config.connectTimeoutMillis(), config.preSharedKey());
    }

    long listen(long context, String ip, int ipPort, int backlog, boolean admission) {
        return NativeChannel.listen0(context, ip, ipPort, backlog, admission, config.queueDepth(), config.eagerSize(),
                config.maxInline(), config.timeout(), config.retryCount(), config.rnrRetry(), port, gidIndex, mtu,
                config.pkeyIndex(), config.serviceLevel(), config.trafficClass(), config.maxMessageSize(),
                config.rendezvousTransfers(), config.maxPendingConnections(), config.keepaliveMillis(),
                config.operationTimeoutMillis(), config.agentLimits().timeoutMillis(), config.agentLimits().quotaBytes(),
                config.agentLimits().quotaCount(), config.connectTimeoutMillis(), config.preSharedKey());
    }
}
