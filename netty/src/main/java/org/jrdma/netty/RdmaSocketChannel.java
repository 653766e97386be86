package org.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaOperationException;

/**
 * A Netty {@link SocketChannel} over a jrdma channel: a byte stream whose writes are sent as jrdma
 * messages ({@link RegisteredWrites}) and whose received messages are read in order
 * ({@link InboundMessages}). Create it through {@code Bootstrap.channel(RdmaSocketChannel.class)} on a
 * group of {@link RdmaIoHandler}s; a server's channels are made by {@link RdmaServerSocketChannel}.
 */
public final class RdmaSocketChannel extends AbstractChannel implements SocketChannel {
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** Failures of the jrdma channel at DEBUG (the pipeline gets them too): what ended a connection, in a log. */
    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(RdmaSocketChannel.class);

    private final RdmaSocketChannelConfig config = new RdmaSocketChannelConfig(this);
    private final InboundMessages inbound = new InboundMessages(this);
    private volatile boolean open = true;
    private volatile boolean active;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;
    /** The context the jrdma channel lives in: the loop's for a client, the listener's for an accepted one. */
    private volatile LoopContext context;
    private RdmaChannel rdma;
    private RegisteredWrites writes;
    private final LoopRegistration registration = new LoopRegistration(this, this::describe);
    private ChannelPromise connectPromise;
    private Future<?> connectTimeout;

    /** A client channel, connected by {@code Bootstrap.connect}. */
    public RdmaSocketChannel() {
        super(null);
    }

    /** A channel a server accepted: open and active, its events reported to {@link #inbound()} from now on. */
    RdmaSocketChannel(RdmaServerSocketChannel parent, LoopContext context, RdmaChannel accepted) {
        super(parent);
        this.context = context;
        this.local = parent.localAddress();
        this.remote = accepted.remoteAddress();
        opened(accepted);
        accepted.setHandler(inbound);
    }

    /**
     * {@return the allocator over the registered memory of the context the jrdma channel lives in (or will:
     * the loop's, for a client channel that is registered), or null before} Buffers from it are sent without a copy.
     */
    RegisteredByteBufAllocator registeredAllocator() {
        LoopContext known = context;
        return known == null ? null : known.allocator();
    }

    /** {@return the bytes this channel sent straight from the buffers written, without a copy (channel's loop only)} */
    long bytesSentInPlace() {
        return writes == null ? 0 : writes.sentInPlace();
    }

    /** {@return the messages this channel handed to jrdma so far (channel's loop only)} */
    long messagesSent() {
        return writes == null ? 0 : writes.messages();
    }

    /** {@return a line on what this channel holds (its loop only): {@link RdmaIoHandler#describeChannels()}} */
    String describe() {
        ChannelOutboundBuffer out = unsafe().outboundBuffer();
        return this + ": open=" + open + " active=" + active + " autoRead=" + config.isAutoRead() + " writable="
                + isWritable() + " outbound=" + (out == null ? "none" : out.size() + " buffers/" + out.totalPendingWriteBytes()
                + " B") + " writes=" + (writes == null ? "none" : writes.describe()) + " inbound=" + inbound.describe()
                + " jrdma=" + (rdma == null ? "none" : (rdma.isOpen() ? "open " : "closed ") + rdma.counters());
    }

    /** What the jrdma channel reports to (messages, close). */
    InboundMessages inbound() {
        return inbound;
    }

    private void opened(RdmaChannel channel) {
        this.rdma = channel;
        if (channel.localAddress() != null) {
            this.local = channel.localAddress();
        }
        this.writes = new RegisteredWrites(context.allocator(), channel, (bytes, failure) -> runOnLoop(() -> sent(bytes, failure)));
        this.active = true;
    }

    /** Runs {@code task} on this channel's loop, in order with its events (now when called there and nothing waits). */
    void runOnLoop(Runnable task) {
        inbound.post(task);
    }

    @Override
    public RdmaServerSocketChannel parent() {
        return (RdmaServerSocketChannel) super.parent();
    }

    @Override
    public RdmaSocketChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    // ---- half-closure: not supported (a jrdma channel has no half-closed state) ----

    @Override
    public boolean isInputShutdown() {
        return !active;
    }

    @Override
    public boolean isOutputShutdown() {
        return !active;
    }

    @Override
    public boolean isShutdown() {
        return !active;
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        return promise.setFailure(halfClosureUnsupported());
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        return promise.setFailure(halfClosureUnsupported());
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        return promise.setFailure(halfClosureUnsupported());
    }

    private Exception halfClosureUnsupported() {
        return !active ? new NotYetConnectedException()
                : new UnsupportedOperationException("jrdma channels do not support half-closure: close the channel");
    }

    /**
     * The jrdma channel ended and everything it delivered was read: the channel closes. A failure (the
     * peer went silent, the queue pair failed, a protocol error) is first reported to the pipeline as an
     * {@link IOException} with jrdma's exception as its cause, as a reset connection is over TCP. After
     * the peer's orderly close, with ALLOW_HALF_CLOSURE the pipeline first sees the input shut down, as a
     * socket's does at the end of the stream; the output cannot stay open, since a jrdma channel closes
     * both ways at once.
     *
     * @param cause why the jrdma channel closed (an {@link RdmaClosedException}, not a subclass, for the peer's close)
     */
    void peerClosed(Throwable cause) {
        if (isFailure(cause)) {
            LOG.debug("{}: the jrdma channel failed", this, cause);
            pipeline().fireExceptionCaught(new IOException("the jrdma channel to " + remote + " failed: " + cause.getMessage(),
                    cause));
        } else {
            LOG.trace("{}: the jrdma channel ended: {}", this, cause);
            if (config.isAllowHalfClosure()) {
                pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
                pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
            }
        }
        unsafe().close(unsafe().voidPromise());
    }

    // ---- registration ----

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return LoopRegistration.fits(loop);
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        registration.register(promise, () -> {
            if (context == null) {
                context = registration.context(); // a client's: it connects in this loop's context
            }
            inbound.registeredWith(eventLoop());
        });
    }

    @Override
    protected void doDeregister() {
        registration.cancel();
    }

    // ---- connecting, closing ----

    @Override
    protected void doBind(SocketAddress localAddress) {
        local = (InetSocketAddress) localAddress;
    }

    private void connect(InetSocketAddress remoteAddress, InetSocketAddress localAddress, ChannelPromise promise) {
        if (rdma != null) {
            promise.setFailure(new AlreadyConnectedException());
            return;
        }
        if (connectPromise != null) {
            promise.setFailure(new ConnectionPendingException());
            return;
        }
        if (localAddress != null) {
            local = localAddress;
        }
        context = registration.context();
        connectPromise = promise;
        remote = remoteAddress;
        int timeoutMillis = config.getConnectTimeoutMillis();
        if (timeoutMillis > 0) {
            connectTimeout = eventLoop().schedule(() -> connectFailed(new ConnectTimeoutException(
                    "connection timed out after " + timeoutMillis + " ms: " + remoteAddress)), timeoutMillis, TimeUnit.MILLISECONDS);
        }
        promise.addListener(f -> {
            if (f.isCancelled()) {
                connectFailed(null);
            }
        });
        InetSocketAddress bind = local;
        context.rdma().connect(remoteAddress, bind == null ? null : bind.getAddress(), inbound).whenComplete(
                (channel, failure) -> runOnLoop(() -> connected(channel, failure, remoteAddress)));
    }

    private void connected(RdmaChannel channel, Throwable failure, InetSocketAddress remoteAddress) {
        ChannelPromise promise = connectPromise;
        if (failure != null) {
            connectFailed(connectException(failure, remoteAddress));
            return;
        }
        if (promise == null || promise.isDone() || !open) { // timed out, cancelled or closed meanwhile
            channel.close();
            return;
        }
        cancelConnectTimeout();
        connectPromise = null;
        opened(channel);
        boolean promiseSet = promise.trySuccess();
        pipeline().fireChannelActive();
        if (!promiseSet) {
            unsafe().close(unsafe().voidPromise()); // the pipeline refuses a void promise for close
        }
    }

    /** Ends a connect that has not succeeded: fails its promise with {@code cause} (null: it was cancelled) and closes. */
    private void connectFailed(Throwable cause) {
        ChannelPromise promise = connectPromise;
        if (promise == null) {
            return;
        }
        connectPromise = null;
        cancelConnectTimeout();
        if (cause != null) {
            promise.tryFailure(cause);
        }
        unsafe().close(unsafe().voidPromise());
    }

    private void cancelConnectTimeout() {
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
    }

    /** {@return what a future failed with, without the CompletionException that wraps it in dependent stages} */
    private static Throwable unwrapped(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** jrdma's connect failure as a socket program expects it: refused (any connection failure) is a {@link ConnectException}. */
    private static Throwable connectException(Throwable failure, InetSocketAddress remoteAddress) {
        Throwable cause = unwrapped(failure);
        if (cause instanceof org.jrdma.ConnectTimeoutException) {
            return new ConnectTimeoutException(cause.getMessage() + ": " + remoteAddress);
        }
        if (cause instanceof org.jrdma.ConnectionException) {
            ConnectException refused = new ConnectException(cause.getMessage() + ": " + remoteAddress);
            refused.initCause(cause);
            return refused;
        }
        return cause;
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    @Override
    protected void doClose() {
        open = false;
        active = false;
        ChannelPromise promise = connectPromise;
        if (promise != null) {
            connectPromise = null;
            cancelConnectTimeout();
            promise.tryFailure(new ClosedChannelException());
        }
        if (rdma != null) {
            rdma.close();
        }
        inbound.discard();
    }

    // ---- reading ----

    @Override
    protected void doBeginRead() {
        inbound.readRequested();
    }

    // ---- writing ----

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf) {
            return msg;
        }
        throw new UnsupportedOperationException("jrdma channels write ByteBufs only, not " + msg.getClass().getName());
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        writes.write(in);
    }

    /** A message reached the peer or failed (on this channel's loop). */
    private void sent(int bytes, Throwable failure) {
        boolean wasFull = writes.full();
        writes.acknowledged(bytes);
        if (failure != null) {
            Throwable cause = unwrapped(failure);
            // A close (the peer's or ours) loses what was in flight, as a socket's does, and the close itself is reported.
            if (active && !(cause instanceof RdmaClosedException) && isFailure(cause)) {
                LOG.debug("{}: a send failed", this, cause);
                pipeline().fireExceptionCaught(cause);
                unsafe().close(unsafe().voidPromise());
            }
            return;
        }
        if (wasFull && !writes.full()) {
            ((Unsafe) unsafe()).resumeWrites();
        }
    }

    /**
     * {@return whether {@code cause} is a failure of the connection rather than its end} The peer's close is
     * reported as an {@link RdmaClosedException} itself (its subclasses are failures: silence, timeouts), and
     * an operation flushed by the connection's end (WR_FLUSH_ERR: the peer disconnected while it was posted)
     * is that end, not an error of its own.
     */
    private static boolean isFailure(Throwable cause) {
        return cause != null && cause.getClass() != RdmaClosedException.class
                && !(cause instanceof RdmaOperationException op && op.flushed());
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new Unsafe();
    }

    private final class Unsafe extends AbstractUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            // Cancellable, as a non-blocking socket's connect is: cancelling closes the channel.
            if (promise.isDone() || !ensureOpen(promise)) {
                return;
            }
            if (!(remoteAddress instanceof InetSocketAddress inet)) {
                promise.setFailure(new IllegalArgumentException("not an InetSocketAddress: " + remoteAddress));
                return;
            }
            if (inet.getAddress() != null && inet.getAddress().isAnyLocalAddress()) {
                // As the kernel does for a socket: connecting to the wildcard address reaches this host.
                inet = new InetSocketAddress(inet.getAddress() instanceof Inet6Address ? "::1" : "127.0.0.1", inet.getPort());
            }
            RdmaSocketChannel.this.connect(inet, (InetSocketAddress) localAddress, promise);
        }

        /** Sends what waited for the in-flight bound. */
        void resumeWrites() {
            flush0();
        }
    }
}
