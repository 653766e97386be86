package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jrdma.Access;
import org.jrdma.AdmissionPolicy;
import org.jrdma.AsyncEvent;
import org.jrdma.ChannelCounters;
import org.jrdma.ChannelHandler;
import org.jrdma.ConnectionRejectedException;
import org.jrdma.ConnectionRequest;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaServer;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaException;
import org.jrdma.RdmaPort;
import org.jrdma.RegisteredBuffer;
import org.jrdma.Transport;

/**
 * The JNI-backed context. Children (buffers, pools, later channels) each hold a use of the context,
 * so the native context is freed only after the last of them: close marks the context closed,
 * closes the children (deferred where operations still use them), and the native objects go in
 * reverse order of creation once nothing depends on them.
 */
final class JniContext extends NativeResource implements RdmaContext {
    private static final System.Logger LOG = System.getLogger("org.jrdma.context");
    private final RdmaConfig config;
    private final TransportChoice choice;
    private final DeviceSelection selection;
    private final long handle;
    private final EventLoop loop;
    private final Set<NativeResource> children = ConcurrentHashMap.newKeySet();
    private final ContextCounters counters;
    private final BufferPool pool = new BufferPool(this);
    private final LargeBlocks largeBlocks;
    private final DeviceEvents deviceEvents = new DeviceEvents();
    private final ChannelRegistry registry = new ChannelRegistry();
    private final ChannelSettings channelSettings;
    private volatile Throwable failure;
    private volatile boolean freeWhenLoopExits;

    JniContext(RdmaConfig config, TransportChoice choice) {
        this.config = config;
        this.choice = choice;
        this.selection = choice.selection();
        this.channelSettings = new ChannelSettings(config, selection);
        this.largeBlocks = new LargeBlocks(this, Math.min(config.receiveBudget(), 128L << 20));
        this.handle = NativeContext.open0(ContextSettings.record(config, choice), selection.device().name());
        this.loop = new EventLoop(this, handle, config.pollMode(), pool);
        loop.start();
        this.counters = new ContextCounters(selection.device().name(), () -> children.stream()
                .filter(c -> c instanceof JniChannel).map(c -> (JniChannel) c).toList(),
                this::deviceCounters, () -> completionQueue(true), () -> completionQueue(false), pool::registeredBytes);
        counters.register(this);
    }

    long handle() {
        return handle;
    }

    ChannelSettings channelSettings() {
        return channelSettings;
    }

    ChannelRegistry registry() {
        return registry;
    }

    boolean inLoopThread() {
        return loop.inLoopThread();
    }

    /**
     * Runs a task on the event-loop thread (after the current batch). Waking the loop touches the
     * native context, so it holds a use of it: once the context is closed the task is dropped
     * (nothing it could do is left: the context's close closed the channels it was about).
     */
    void runOnLoop(Runnable task) {
        whileUsable(() -> {
            loop.submit(task);
            return null;
        }, null);
    }

    /** Runs an action that touches the native context while holding a use of it; {@code closed} once it is closed. */
    private <T> T whileUsable(Supplier<T> action, T closed) {
        try {
            acquire();
        } catch (RdmaClosedException e) {
            return closed;
        }
        try {
            return action.get();
        } finally {
            release();
        }
    }

    @Override
    public RdmaConfig config() {
        return config;
    }

    @Override
    public Transport transport() {
        return choice.transport();
    }

    @Override
    public RdmaDevice device() {
        return selection.device();
    }

    @Override
    public RdmaPort port() {
        return selection.port();
    }

    @Override
    public int gidIndex() {
        return selection.gidIndex();
    }

    @Override
    public int mtu() {
        return selection.mtu();
    }

    @Override
    public RegisteredBuffer register(ByteBuffer buffer, Access... access) {
        if (buffer == null) {
            throw new NullPointerException("buffer");
        }
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("only direct ByteBuffers can be registered (the GC moves heap buffers);"
                    + " use ByteBuffer.allocateDirect or RdmaContext.allocate");
        }
        if (buffer.isReadOnly()) {
            throw new IllegalArgumentException("a read-only ByteBuffer cannot be registered");
        }
        if (!buffer.hasRemaining()) {
            throw new IllegalArgumentException("the buffer has no remaining bytes to register");
        }
        ensureUsable();
        ByteBuffer window = buffer.slice();
        return track(new DedicatedBuffer(this, registerRaw(window, AccessFlags.mask(access))));
    }

    @Override
    public RegisteredBuffer allocate(int size, Access... access) {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        ensureUsable();
        int mask = AccessFlags.mask(access);
        if (BufferPool.blockSize(size) < 0 && mask == AccessFlags.LOCAL_WRITE) {
            return largeBlocks.take(size); // kept registered between uses, as the pool's blocks
        }
        if (BufferPool.blockSize(size) < 0) {
            ByteBuffer memory = AlignedMemory.direct(size);
            return track(new DedicatedBuffer(this, registerRaw(memory, mask)));
        }
        return pool.allocate(size, mask);
    }

    /**
     * Memory for a message read by rendezvous (local write only): a pool block up to the largest size
     * class, above it a block kept registered from an earlier large message when there is one.
     */
    BufferBase transferBuffer(int size) {
        ensureUsable();
        return BufferPool.blockSize(size) >= 0 ? (BufferBase) allocate(size) : largeBlocks.take(size);
    }

    /** Registers [offset, +length) of a registration's memory with its own keys (a pooled block's remote access). */
    MemoryRegistration registerRange(MemoryRegistration whole, int offset, int length, int access) {
        return register(whole.memory(), whole.address + offset, length, access, false);
    }

    /** Registers a whole direct buffer. */
    MemoryRegistration registerRaw(ByteBuffer memory, int access) {
        return register(memory, NativeContext.address0(memory), memory.capacity(), access, false);
    }

    /** A registration; it holds a use of this context. ownsPages: see {@link MemoryRegistration}. */
    MemoryRegistration register(ByteBuffer memory, long address, int length, int access, boolean ownsPages) {
        acquire();
        try {
            return new MemoryRegistration(this, memory, address, length, access, ownsPages);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /**
     * Records a child so that close() closes it; the child holds a use of this context until freed.
     * When the context is closed (or closes meanwhile) the child is closed here, which frees what it
     * owns (its registration, its pool block): callers must not clean those up again.
     */
    <T extends NativeResource> T track(T child) {
        try {
            acquire();
        } catch (RuntimeException closed) {
            child.markClosed(); // never tracked: childFreed finds nothing to release
            throw closed;
        }
        children.add(child);
        if (isClosedFlag()) { // lost a race with close(): close the child ourselves
            child.markClosed();
            throw new RdmaClosedException(describe() + " is closed");
        }
        return child;
    }

    @Override
    public ChannelCounters counters() {
        return counters.total();
    }

    @Override
    public Map<String, Long> operationErrors() {
        return counters.errorsByStatus();
    }

    @Override
    public Map<String, Long> deviceCounters() {
        return transport() != Transport.VERBS ? Map.of() : DeviceCounters.read(selection.device().name(), selection.port().number());
    }

    /** An operation of one of this context's channels failed with this status (its name). */
    void operationFailed(String status) {
        counters.operationFailed(status);
    }

    /** The CQ's resizes or capacity (JMX, any thread), or -1 once the context is closed. */
    private int completionQueue(boolean resizes) {
        return whileUsable(() -> resizes ? NativeContext.cqResizes0(handle) : NativeContext.cqCapacity0(handle), -1);
    }

    /** A channel is about to free its native object: its counters join the context's totals first. */
    void channelFreeing(JniChannel channel) {
        counters.channelClosed(channel);
    }

    void childFreed(NativeResource child) {
        if (children.remove(child)) {
            release();
        }
    }

    private void ensureUsable() {
        ensureOpen();
        Throwable cause = failure;
        if (cause != null) {
            throw new RdmaException("context on " + device().name() + " has failed: " + cause.getMessage(), cause);
        }
    }

    @Override
    public RdmaServer listen(InetSocketAddress address, ChannelHandler handler) {
        return listen(address, handler, null);
    }

    @Override
    public RdmaServer listen(InetSocketAddress address, ChannelHandler handler, AdmissionPolicy policy) {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(handler, "handler");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + address);
        }
        ensureUsable();
        acquire();
        JniServer server;
        try {
            server = new JniServer(this, address, handler, policy);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
        release();
        registry.addServer(server);
        return track(server);
    }

    @Override
    public CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, ChannelHandler handler) {
        return connect(remote, null, handler);
    }

    @Override
    public CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, InetAddress local, ChannelHandler handler) {
        return connect(remote, local, handler, null);
    }

    @Override
    public CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, InetAddress local, ChannelHandler handler,
                                                  byte[] connectData) {
        Objects.requireNonNull(remote, "remote");
        if (connectData != null && connectData.length > ConnectionRequest.MAX_DATA) {
            throw new IllegalArgumentException("connect data of " + connectData.length + " bytes; at most "
                    + ConnectionRequest.MAX_DATA + " fit a connect request");
        }
        if (remote.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + remote);
        }
        ensureUsable();
        acquire();
        try {
            long channelHandle = channelSettings.createChannel(handle);
            JniChannel channel;
            try {
                channel = new JniChannel(this, channelHandle, remote, config, handler);
                // Known to the registry before the loop can report anything about it.
                registry.register(channel);
                NativeChannel.connect0(handle, channelHandle, remote.getAddress().getHostAddress(), remote.getPort(),
                        sourceAddress(local, remote), config.connectTimeoutMillis(), connectData);
            } catch (RuntimeException e) {
                NativeChannel.destroy0(handle, channelHandle); // the registry drops it with its key
                throw e;
            }
            track(channel);
            return ConnectionFailures.withDeadline(channel, remote, config.connectTimeoutMillis() * 3L);
        } finally {
            release();
        }
    }

    // ---- connection events (loop thread) ----------------------------------------------------------

    /** A connection request passed the handshake and is being accepted: the channel exists natively. */
    void onIncoming(int key, long channelHandle, long listener) {
        JniServer server = registry.server(listener);
        if (server == null || server.isClosedFlag()) {
            NativeChannel.abort0(handle, channelHandle);
            NativeChannel.destroy0(handle, channelHandle);
            return;
        }
        JniChannel channel = new JniChannel(this, channelHandle, peerAddress(channelHandle), server.config,
                server.handler);
        registry.register(channel);
        try {
            track(channel);
        } catch (RuntimeException closing) {
            // the context is closing: the channel was closed by track
        }
    }

    /** Where an accepted channel's connection comes from (so logs and exceptions name the peer). */
    private InetSocketAddress peerAddress(long channelHandle) {
        return NativeAddresses.parse(NativeChannel.address0(handle, channelHandle, false));
    }

    void onIncomingRejected(long listener, int reason, int peerValue) {
        JniServer server = registry.server(listener);
        ConnectionRejectedException e = ConnectionFailures.incomingRejected(reason, peerValue, config.eagerSize());
        LOG.log(Level.WARNING, e.getMessage());
        if (server != null) {
            try {
                server.handler.onRejected(e);
            } catch (RuntimeException thrown) {
                LOG.log(Level.WARNING, "ChannelHandler.onRejected threw", thrown);
            }
        }
    }

    @Override
    public void addAsyncEventListener(Consumer<AsyncEvent> listener) {
        deviceEvents.add(listener);
    }

    void onAsyncEvent(AsyncEvent event) {
        DeviceEvents.log(device().name(), event);
        if (event.severity() == AsyncEvent.Severity.FATAL) {
            RdmaException cause = new RdmaException("fatal async event " + event.type() + " on " + device().name(), 0);
            fail(cause);
            // Everything that depends on the device fails with the same cause.
            for (NativeResource child : new ArrayList<>(children)) {
                if (child instanceof JniChannel) {
                    ((JniChannel) child).fail(cause);
                }
            }
        }
        deviceEvents.notifyListeners(event);
    }

    /** The device is being removed: new work is refused (its channels close on their own records). */
    void onDeviceRemoved() {
        fail(DeviceEvents.removed(device().name()));
    }

    /** Marks the context failed: new work is refused with this cause. */
    void fail(Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    @Override
    public int progress(long timeout, TimeUnit unit) {
        return loop.progress(Math.max(0, unit.toNanos(timeout)));
    }

    @Override
    public void wakeup() {
        whileUsable(() -> {
            loop.wake();
            return null;
        }, null);
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    @Override
    public boolean isClosed() {
        return isClosedFlag();
    }

    @Override
    public void close() {
        if (!markClosedKeepingUse()) {
            return;
        }
        for (NativeResource child : new ArrayList<>(children)) {
            child.closeFromParent();
        }
        pool.close();
        largeBlocks.close();
        release(); // the context's own use: it is freed now, or when the last child is
    }

    /**
     * Where a connection comes from: {@code local}, else over verbs this context's device (its GID's address, when of the
     * remote's family) — the route's own choice may lead out of another device, whose queue pairs this context cannot use.
     */
    private String sourceAddress(InetAddress local, InetSocketAddress remote) {
        InetAddress source = local != null || transport() != Transport.VERBS ? local : selection.sourceFor(remote.getAddress());
        return source == null ? null : source.getHostAddress();
    }

    @Override
    protected String describe() {
        return transport() == Transport.VERBS ? "context on " + selection.device().name()
                : "context over " + (choice.opened() == Transport.AUTO ? "TCP and shared memory" : transport().name());
    }

    @Override
    protected void free() {
        counters.unregister();
        if (loop.inLoopThread()) {
            // The last use went away on the loop thread (in a callback): the loop frees the
            // native context after it has left native code for good.
            freeWhenLoopExits = true;
            loop.stop();
            return;
        }
        loop.stop();
        NativeContext.close0(handle);
    }

    /** Called by the loop thread as it ends, or by a caller driving the loop as it leaves a closed context's progress. */
    void loopExited() {
        if (freeWhenLoopExits) {
            freeWhenLoopExits = false; // once: a later progress call of the same thread finds the context closed
            try {
                NativeContext.close0(handle);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "closing " + describe() + " failed", e);
            }
        }
    }

    @Override
    public String toString() {
        String link = transport() != Transport.VERBS ? "" : " port " + port().number() + " gid " + gidIndex() + " mtu " + mtu();
        return describe() + link + (isClosed() ? " (closed)" : "");
    }
}
