package org.jrdma.netty;

import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ServerSocketChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;

/**
 * A Netty {@link ServerSocketChannel} over a jrdma listener in its loop's context: each connection it
 * accepts is read as a {@link RdmaSocketChannel} (which {@code ServerBootstrap} registers with a child
 * loop). An accepted channel stays in this loop's context, so this loop's thread sees its completions
 * and hands its events to the child's loop: use one group for both to avoid that hop.
 */
public final class RdmaServerSocketChannel extends AbstractServerChannel implements ServerSocketChannel {
    private final RdmaServerSocketChannelConfig config = new RdmaServerSocketChannelConfig(this);
    /** Accepted connections waiting for a read (the loop's thread only). */
    private final ArrayDeque<RdmaSocketChannel> accepted = new ArrayDeque<>();
    private volatile boolean open = true;
    private volatile RdmaServer server;
    private final LoopRegistration registration = new LoopRegistration(this, this::describe);
    private boolean readRequested;

    /** A server channel, bound by {@code ServerBootstrap.bind}. */
    public RdmaServerSocketChannel() {
    }

    @Override
    public RdmaServerSocketChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && server != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    protected SocketAddress localAddress0() {
        RdmaServer bound = server;
        return bound == null ? null : bound.localAddress();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return LoopRegistration.fits(loop);
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        registration.register(promise, () -> { });
    }

    @Override
    protected void doDeregister() {
        registration.cancel();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        LoopContext context = registration.context();
        server = context.rdma().listen((InetSocketAddress) localAddress, new Acceptor(context));
    }

    @Override
    protected void doClose() {
        open = false;
        RdmaServer bound = server;
        if (bound != null) {
            bound.close();
        }
        for (RdmaSocketChannel channel = accepted.poll(); channel != null; channel = accepted.poll()) {
            channel.unsafe().closeForcibly();
        }
    }

    /** {@return a line on what this channel holds (its loop only): {@link RdmaIoHandler#describeChannels()}} */
    String describe() {
        return this + ": open=" + open + " listening=" + (server != null) + " accepted, not read yet " + accepted.size()
                + " readRequested=" + readRequested;
    }

    @Override
    protected void doBeginRead() {
        readRequested = true;
        if (!accepted.isEmpty()) {
            eventLoop().execute(this::deliver); // not now: doBeginRead is called from within the pipeline
        }
    }

    private void deliver() {
        if (!readRequested || accepted.isEmpty() || !isOpen()) {
            return;
        }
        readRequested = false;
        ChannelPipeline pipeline = pipeline();
        for (RdmaSocketChannel channel = accepted.poll(); channel != null; channel = accepted.poll()) {
            pipeline.fireChannelRead(channel);
        }
        pipeline.fireChannelReadComplete();
    }

    /** The listener's handler: runs on this loop's thread, which drives the context. */
    private final class Acceptor implements ChannelHandler {
        private final LoopContext context;

        Acceptor(LoopContext context) {
            this.context = context;
        }

        @Override
        public void onOpen(RdmaChannel channel) {
            if (!isOpen()) {
                channel.close();
                return;
            }
            accepted.add(new RdmaSocketChannel(RdmaServerSocketChannel.this, context, channel));
            deliver();
        }

        @Override
        public void onMessage(RdmaChannel channel, RdmaMessage message) {
            // Not reached: onOpen gives each channel its own handler before it delivers a message.
            channel.close();
        }
    }
}
