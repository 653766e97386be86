package org.jrdma.impl;

import java.net.InetSocketAddress;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaServer;

/** A listening rdma_cm id; accepted channels get the server's handler. */
final class JniServer extends NativeResource implements RdmaServer {
    private final JniContext context;
    final long listener;
    private final InetSocketAddress localAddress;
    final ChannelHandler handler;
    final RdmaConfig config;

    JniServer(JniContext context, InetSocketAddress requested, ChannelHandler handler) {
        this.context = context;
        this.handler = handler;
        this.config = context.config();
        this.listener = context.channelSettings().listen(context.handle(), requested.getAddress().getHostAddress(),
                requested.getPort(), 128);
        int port = NativeChannel.listenerPort0(listener);
        this.localAddress = new InetSocketAddress(requested.getAddress(), port);
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public void close() {
        markClosed();
    }

    @Override
    protected String describe() {
        return "server on " + localAddress;
    }

    @Override
    protected void free() {
        context.registry().unregisterServer(this);
        try {
            NativeChannel.closeListener0(context.handle(), listener);
        } finally {
            context.childFreed(this);
        }
    }
}
