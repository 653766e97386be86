package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.ChannelHandler;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaOperationException;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * A channel: credit-based two-sided messaging and one-sided operations on one RC queue pair.
 *
 * <p>Credits: the peer posted {@code credits} receive buffers; every SEND and WRITE_WITH_IMM uses one,
 * and an operation that has none waits in {@link #queue} (in order) — so the peer never sees a
 * receiver-not-ready. One credit is kept back for explicit CREDIT messages, which return the credits
 * of re-posted buffers when no data message can carry them. Receive buffers are re-posted in
 * batches (once per event-loop batch) before their credits are returned.
 *
 * <p>Posting: operations become 64-byte work requests in {@link #posts}; a caller's thread posts them at
 * once, the event-loop thread (callbacks that post the next operation) at the end of its batch —
 * either way with one JNI call and one doorbell per batch, the re-posted receive buffers first.
 * Selective signaling: only some requests ask for a completion (see {@link PostBuffer}); a completion
 * finishes every operation posted before it, in order ({@link #postedOrder}), as RC guarantees.
 *
 * <p>Threads: posting runs on the caller's thread under {@link #lock}; completions, messages and
 * connection events arrive on the event-loop thread. No native call happens once the state is CLOSED.
 */
final class JniChannel extends NativeResource implements RdmaChannel {
    private static final System.Logger LOG = System.getLogger("org.jrdma");
    static final int HEADER_BYTES = 16;
    static final int TYPE_DATA = 1;
    static final int TYPE_CREDIT = 2;
    /** Credits kept back for CREDIT messages. */
    private static final int CREDIT_RESERVE = 1;

    enum State { CONNECTING, OPEN, CLOSING, CLOSED }

    final JniContext context;
    final long handle;
    final boolean passive;
    private final InetSocketAddress remote;
    private final int depth;
    private final int eager;
    private final int creditThreshold;
    /** How long a graceful close waits for posted operations: twice the transport's own give-up time, at least 2 s. */
    private final long gracefulCloseMillis;
    private final Object lock = new Object();
    private final CompletableFuture<RdmaChannel> connected = new CompletableFuture<>();
    private final CompletableFuture<Throwable> closed = new CompletableFuture<>();

    // Guarded by lock.
    private State state = State.CONNECTING;
    private Throwable closeCause;
    private int key;
    private boolean keyed; // the native side gave this channel its key (QP created)
    private int credits;
    /** Written once when the connection is set up; read without the lock on every send. */
    private volatile int peerEager;
    private int creditsToReturn;
    private long nextMessageId;
    private final ChannelOp[] ops;
    private final int[] freeSlots;
    private int freeCount;
    private final ArrayDeque<ChannelOp> queue = new ArrayDeque<>();
    private final PostBuffer posts;
    /** Slots of posted operations in posting order (a ring): the order their completions come in. */
    private final int[] postedOrder;
    private int orderHead;
    private int orderSize;
    private int repostCount;
    private final ArrayDeque<int[]> held = new ArrayDeque<>(); // {slot, length} waiting for open/handler

    private volatile ChannelHandler handler;
    // Receive side: Java-owned memory, registered once; one view and one message object per slot.
    private MemoryRegistration receive;
    private ByteBuffer receiveMemory;
    private JniMessage[] messages;
    private ByteBuffer repostSlots;
    private long repostAddress;
    private RegisteredBuffer atomicResults;
    private ByteBuffer atomicView;
    boolean dirty; // loop thread: touched in this batch
    // Loop thread only: the operations one completion finishes, gathered under the lock, completed outside it.
    private final ChannelOp[] finishing;
    private final Object[] finishingResults;

    JniChannel(JniContext context, long handle, boolean passive, InetSocketAddress remote, RdmaConfig config,
               ChannelHandler handler) {
        this.context = context;
        this.handle = handle;
        this.passive = passive;
        this.remote = remote;
        this.depth = config.queueDepth();
        this.eager = config.eagerSize();
        this.creditThreshold = Math.max(2, depth / 4);
        double ackTimeoutMillis = 4.096e-3 * Math.pow(2, config.timeout());
        this.gracefulCloseMillis = Math.max(2000L, (long) (2 * ackTimeoutMillis * (config.retryCount() + 1)));
        this.handler = handler;
        this.ops = new ChannelOp[depth];
        this.freeSlots = new int[depth];
        for (int i = 0; i < depth; i++) {
            freeSlots[i] = depth - 1 - i;
        }
        this.freeCount = depth;
        this.posts = new PostBuffer(depth, Math.min(16, depth / 4));
        this.postedOrder = new int[depth];
        this.finishing = new ChannelOp[depth];
        this.finishingResults = new Object[depth];
    }

    CompletableFuture<RdmaChannel> connectedFuture() {
        return connected;
    }

    int key() {
        return key;
    }

    boolean keyed() {
        return keyed;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public int maxMessageSize() {
        int peer = peerEager;
        return (peer > 0 ? peer : eager) - HEADER_BYTES;
    }

    @Override
    public void setHandler(ChannelHandler newHandler) {
        this.handler = java.util.Objects.requireNonNull(newHandler, "handler");
        if (context.inLoopThread()) {
            deliverHeld();
        } else {
            context.runOnLoop(this::deliverHeld);
        }
    }

    // ---- connection set-up (loop thread) --------------------------------------------------------

    /** The QP exists: register the receive buffers and accept (passive) or connect (active). */
    void onReady(int newKey, int peerCredits, int peerEagerSize) {
        synchronized (lock) {
            if (state != State.CONNECTING) {
                return;
            }
            key = newKey;
            keyed = true;
            if (passive) {
                credits = peerCredits;
                peerEager = peerEagerSize;
            }
        }
        context.registry().register(newKey, this);
        try {
            receiveMemory = AlignedMemory.allocate(Math.multiplyExact(depth, eager)).order(ByteOrder.LITTLE_ENDIAN);
            receive = context.registerRaw(receiveMemory, AccessFlags.LOCAL_WRITE);
            messages = new JniMessage[depth];
            for (int slot = 0; slot < depth; slot++) {
                ByteBuffer view = receiveMemory.duplicate();
                view.clear().position(slot * eager + HEADER_BYTES).limit((slot + 1) * eager);
                messages[slot] = new JniMessage(this, slot, view.slice().asReadOnlyBuffer());
            }
            repostSlots = ByteBuffer.allocateDirect(depth * 4).order(ByteOrder.nativeOrder());
            repostAddress = NativeContext.address0(repostSlots);
            atomicResults = context.allocate(8 * depth);
            atomicView = atomicResults.buffer().order(ByteOrder.nativeOrder());
            synchronized (lock) {
                if (state != State.CONNECTING) {
                    return;
                }
                if (passive) {
                    NativeChannel.accept0(context.handle(), handle, receive.address, receive.lkey);
                } else {
                    NativeChannel.continueConnect0(context.handle(), handle, receive.address, receive.lkey);
                }
            }
        } catch (RuntimeException e) {
            if (passive) {
                synchronized (lock) {
                    if (state == State.CONNECTING) {
                        NativeChannel.reject0(context.handle(), handle, 7 /* kResources */);
                    }
                }
            }
            fail(e);
        }
    }

    void onEstablished(int peerCredits, int peerEagerSize) {
        synchronized (lock) {
            if (state != State.CONNECTING) {
                return;
            }
            state = State.OPEN;
            credits = peerCredits;
            peerEager = peerEagerSize;
        }
        connected.complete(this);
        ChannelHandler h = handler;
        if (h != null) {
            try {
                h.onOpen(this);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "ChannelHandler.onOpen threw", e);
            }
        }
        deliverHeld();
    }

    /** The connection attempt failed (or the QP could not be set up). */
    void fail(Throwable cause) {
        closeWithCause(cause);
    }

    void onDisconnected() {
        closeWithCause(new RdmaClosedException("the peer disconnected (" + remote + ")"));
    }

    // ---- posting (caller's thread) ---------------------------------------------------------------

    @Override
    public CompletableFuture<Void> send(RegisteredBuffer buffer, int offset, int length) {
        BufferBase local = local(buffer, offset, length);
        int max = maxMessageSize();
        if (length > max) {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds the eager size: at most " + max
                    + " bytes per send (larger messages need the rendezvous protocol, not available yet)");
        }
        return typed(submit(new ChannelOp(ChannelOp.Kind.SEND, local, offset, length, 0, 0, 0, 0, 0)));
    }

    @Override
    public CompletableFuture<Void> write(RegisteredBuffer local, int offset, RemoteBuffer remoteBuffer, long remoteOffset,
                                         int length) {
        BufferBase source = local(local, offset, length);
        remoteBuffer.checkRange(remoteOffset, length);
        return typed(submit(new ChannelOp(ChannelOp.Kind.WRITE, source, offset, length, remoteBuffer.address() + remoteOffset,
                remoteBuffer.rkey(), 0, 0, 0)));
    }

    @Override
    public CompletableFuture<Void> writeWithImmediate(RegisteredBuffer local, int offset, RemoteBuffer remoteBuffer,
                                                      long remoteOffset, int length, int immediate) {
        BufferBase source = local(local, offset, length);
        remoteBuffer.checkRange(remoteOffset, length);
        return typed(submit(new ChannelOp(ChannelOp.Kind.WRITE_IMM, source, offset, length,
                remoteBuffer.address() + remoteOffset, remoteBuffer.rkey(), immediate, 0, 0)));
    }

    @Override
    public CompletableFuture<Void> read(RemoteBuffer remoteBuffer, long remoteOffset, RegisteredBuffer local, int offset,
                                        int length) {
        BufferBase target = local(local, offset, length);
        if (length == 0) {
            throw new IllegalArgumentException("an RDMA READ needs at least one byte");
        }
        remoteBuffer.checkRange(remoteOffset, length);
        return typed(submit(new ChannelOp(ChannelOp.Kind.READ, target, offset, length, remoteBuffer.address() + remoteOffset,
                remoteBuffer.rkey(), 0, 0, 0)));
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(RemoteBuffer remoteBuffer, long remoteOffset, long expected, long newValue) {
        long address = atomicTarget(remoteBuffer, remoteOffset);
        return typed(submit(new ChannelOp(ChannelOp.Kind.COMPARE_AND_SWAP, null, 0, 8, address, remoteBuffer.rkey(), 0, expected,
                newValue)));
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(RemoteBuffer remoteBuffer, long remoteOffset, long delta) {
        long address = atomicTarget(remoteBuffer, remoteOffset);
        return typed(submit(new ChannelOp(ChannelOp.Kind.FETCH_AND_ADD, null, 0, 8, address, remoteBuffer.rkey(), 0, delta, 0)));
    }

    private static long atomicTarget(RemoteBuffer remoteBuffer, long remoteOffset) {
        remoteBuffer.checkRange(remoteOffset, 8);
        long address = remoteBuffer.address() + remoteOffset;
        if ((address & 7) != 0) {
            throw new IllegalArgumentException("atomic operations need an 8-byte aligned remote address, got 0x"
                    + Long.toHexString(address));
        }
        return address;
    }

    private BufferBase local(RegisteredBuffer buffer, int offset, int length) {
        if (!(buffer instanceof BufferBase)) {
            throw new IllegalArgumentException("not a buffer registered by jrdma: " + buffer);
        }
        BufferBase local = (BufferBase) buffer;
        if (local.registration.context() != context) {
            throw new IllegalArgumentException("the buffer is registered with another context (" + local + ")");
        }
        if (offset < 0 || length < 0 || offset > local.length() || length > local.length() - offset) {
            throw new IllegalArgumentException("range [" + offset + ", " + offset + "+" + length + ") outside the buffer of "
                    + local.length() + " bytes");
        }
        return local;
    }

    /** The operation is its own future; its value is null (Void) or the Long of an atomic. */
    @SuppressWarnings("unchecked")
    private static <T> CompletableFuture<T> typed(ChannelOp op) {
        return (CompletableFuture<T>) (CompletableFuture<?>) op;
    }

    private ChannelOp submit(ChannelOp op) {
        if (op.buffer != null) {
            op.buffer.acquire(); // a closed buffer is refused here; an open one stays registered until completion
        }
        synchronized (lock) {
            if (state != State.OPEN) {
                failOp(op, closedException());
                return op;
            }
            if (queue.isEmpty() && canPost(op)) {
                post(op);
                postedLocked();
            } else {
                queue.add(op);
            }
        }
        return op;
    }

    private boolean canPost(ChannelOp op) {
        if (freeCount == 0) {
            return false;
        }
        if (op.kind == ChannelOp.Kind.CREDIT) {
            return credits >= 1;
        }
        return !op.kind.needsCredit || credits > CREDIT_RESERVE;
    }

    /** Takes a slot (and a credit) for the operation and queues its work request in {@link #posts}. */
    private void post(ChannelOp op) {
        int slot = freeSlots[--freeCount];
        ops[slot] = op;
        postedOrder[(orderHead + orderSize++) % depth] = slot;
        if (op.kind.needsCredit) {
            credits--;
        }
        long local = 0;
        int lkey = 0;
        if (op.buffer != null) {
            local = op.buffer.registration.address + op.buffer.offset + op.offset;
            lkey = op.buffer.registration.lkey;
        }
        int returned = 0;
        long messageId = 0;
        switch (op.kind) {
            case SEND:
            case CREDIT:
                // The buffers behind these credits are re-posted in the same native call, before this send.
                returned = Math.min(creditsToReturn, 65535);
                creditsToReturn -= returned;
                messageId = nextMessageId++;
                break;
            case COMPARE_AND_SWAP:
            case FETCH_AND_ADD:
                local = atomicResults.address() + 8L * slot;
                lkey = atomicResults.lkey();
                break;
            default:
                break;
        }
        posts.add(op.kind, slot, returned, local, op.length, lkey, op.remoteAddress, op.rkey, op.immediate, messageId,
                op.compareOrAdd, op.swap);
    }

    /**
     * Work requests were queued: a caller's thread posts them now; the loop thread at the end of its
     * batch, together with whatever else the batch posts and re-posts on this channel.
     */
    private void postedLocked() {
        if (context.inLoopThread()) {
            markDirty();
        } else {
            flushPosts();
        }
    }

    private void markDirty() {
        if (!dirty) {
            dirty = true;
            context.registry().markDirty(this);
        }
    }

    /** One native call: re-posts the freed receive buffers, then posts every queued work request. */
    private void flushPosts() {
        int count = posts.count();
        int reposts = repostCount;
        if (count == 0 && reposts == 0) {
            return;
        }
        posts.markSignals();
        posts.clear();
        repostCount = 0;
        if (state == State.CLOSED) {
            return;
        }
        try {
            NativeChannel.postBatch0(handle, posts.address(), count, repostAddress, reposts);
        } catch (RuntimeException | Error e) {
            // Some of the requests may be on the queue pair, some not (or none: a StackOverflowError
            // at the JNI call): closing the channel fails each pending operation exactly once, with
            // this cause, instead of leaving one waiting for a completion that never comes.
            closeWithCauseLater(e);
            if (e instanceof Error) {
                throw (Error) e;
            }
        }
    }

    private void drainQueue() {
        boolean posted = false;
        while (!queue.isEmpty() && state == State.OPEN && canPost(queue.peek())) {
            post(queue.poll());
            posted = true;
        }
        if (posted) {
            postedLocked();
        }
    }

    // ---- completions and messages (loop thread) ---------------------------------------------------

    void onCompletion(int slot, boolean receive, int status, int opcode) {
        if (receive) {
            if (status != WorkCompletion.SUCCESS) {
                onQueuePairError("RECV", status);
            }
            return;
        }
        int finished = 0;
        boolean finishClose;
        synchronized (lock) {
            if (slot < 0 || slot >= depth || ops[slot] == null) {
                return; // already failed by a close: the completion is late
            }
            // The send queue completes in order: this completion also finishes every operation posted
            // before it without asking for a completion of its own.
            while (orderSize > 0) {
                int done = postedOrder[orderHead];
                orderHead = (orderHead + 1) % depth;
                orderSize--;
                ChannelOp op = ops[done];
                ops[done] = null;
                freeSlots[freeCount++] = done;
                // Read an atomic's result before its slot can be reused.
                finishingResults[finished] = op.kind == ChannelOp.Kind.COMPARE_AND_SWAP || op.kind == ChannelOp.Kind.FETCH_AND_ADD
                        ? (Object) atomicView.getLong(8 * done) : null;
                finishing[finished++] = op;
                if (done == slot) {
                    break;
                }
            }
            drainQueue();
            finishClose = state == State.CLOSING && freeCount == depth;
        }
        for (int i = 0; i < finished - 1; i++) {
            succeed(finishing[i], finishingResults[i]);
            finishing[i] = null;
        }
        ChannelOp op = finishing[finished - 1];
        Object result = finishingResults[finished - 1];
        finishing[finished - 1] = null;
        if (status == WorkCompletion.SUCCESS) {
            succeed(op, result);
        } else if (status == WorkCompletion.WR_FLUSH_ERR && !isOpen()) {
            failOp(op, closedException()); // flushed by our own close
        } else {
            RdmaOperationException e = new RdmaOperationException(op.kind.verb, status, WorkCompletion.status(status));
            failOp(op, e);
            closeWithCause(e);
            return;
        }
        if (finishClose) {
            finishGracefulClose();
        }
    }

    private static void succeed(ChannelOp op, Object result) {
        if (op.buffer != null) {
            op.buffer.release();
        }
        op.complete(result);
    }

    private void onQueuePairError(String verb, int status) {
        if (status == WorkCompletion.WR_FLUSH_ERR) {
            return; // the QP is already in error: the cause was reported by the first failure
        }
        closeWithCause(new RdmaOperationException(verb, status, WorkCompletion.status(status)));
    }

    void onMessage(int slot, int length, int returnedCredits, int type, long id) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            credits += returnedCredits;
            drainQueue();
            if (type == TYPE_CREDIT) {
                releaseReceiveLocked(slot, true);
                return;
            }
            if (state == State.CONNECTING || handler == null || !held.isEmpty()) {
                held.add(new int[] {slot, length, (int) id, (int) (id >>> 32)});
                return;
            }
        }
        deliver(slot, length, id);
    }

    void onImmediate(int slot, int immediate) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
        }
        ChannelHandler h = handler;
        try {
            if (h != null) {
                h.onImmediate(this, immediate);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "ChannelHandler.onImmediate threw", e);
        } finally {
            releaseReceive(slot);
        }
    }

    void onProtocolError(int slot, String detail) {
        closeWithCause(new ProtocolException("malformed message from " + remote + ": " + detail + "; channel closed"));
    }

    private void deliver(int slot, int length, long id) {
        JniMessage message = messages[slot];
        message.arm(length, id);
        try {
            handler.onMessage(this, message);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "ChannelHandler.onMessage threw", e);
        }
        message.handlerReturned();
    }

    private void deliverHeld() {
        for (;;) {
            int[] next;
            synchronized (lock) {
                if (state != State.OPEN || handler == null || held.isEmpty()) {
                    return;
                }
                next = held.poll();
            }
            deliver(next[0], next[1], (next[2] & 0xffffffffL) | ((long) next[3] << 32));
        }
    }

    /** A receive buffer is free again (message released): re-post it in this batch and return its credit. */
    void releaseReceive(int slot) {
        boolean inLoop = context.inLoopThread();
        synchronized (lock) {
            releaseReceiveLocked(slot, inLoop);
            if (!inLoop) {
                flushLocked(); // released by the user later: no batch end will come for it
            }
        }
    }

    private void releaseReceiveLocked(int slot, boolean inLoop) {
        if (state == State.CLOSED) {
            return;
        }
        repostSlots.putInt(4 * repostCount++, slot);
        creditsToReturn++;
        if (inLoop) { // the batch end flushes it; other threads flush at once
            markDirty();
        }
    }

    /** End of an event-loop batch: re-post buffers together, send an explicit credit message if needed. */
    void flushBatch() {
        synchronized (lock) {
            dirty = false;
            flushLocked();
        }
    }

    private void flushLocked() {
        if (state == State.CLOSED) {
            return;
        }
        if (creditsToReturn >= creditThreshold && queue.isEmpty() && state == State.OPEN) {
            ChannelOp credit = new ChannelOp(ChannelOp.Kind.CREDIT, null, 0, 0, 0, 0, 0, 0, 0);
            if (canPost(credit)) {
                post(credit);
            }
        }
        flushPosts();
    }

    // ---- closing ----------------------------------------------------------------------------------

    @Override
    public boolean isOpen() {
        synchronized (lock) {
            return state == State.OPEN;
        }
    }

    @Override
    public CompletableFuture<Throwable> closeFuture() {
        return closed;
    }

    private RdmaClosedException closedException() {
        Throwable cause = closeCause;
        return cause == null ? new RdmaClosedException("channel to " + remote + " is closed")
                : new RdmaClosedException("channel to " + remote + " is closed: " + cause.getMessage(), cause);
    }

    @Override
    public void close() {
        List<ChannelOp> queued;
        boolean now;
        synchronized (lock) {
            if (state == State.CLOSING || state == State.CLOSED) {
                return;
            }
            if (state == State.CONNECTING) {
                closeCause = new RdmaClosedException("closed while connecting");
            }
            boolean wasConnecting = state == State.CONNECTING;
            state = State.CLOSING;
            queued = new ArrayList<>(queue);
            queue.clear();
            now = wasConnecting || freeCount == depth;
        }
        RdmaClosedException closedError = new RdmaClosedException("channel to " + remote + " was closed before the operation was posted");
        queued.forEach(op -> failOp(op, closedError));
        if (now) {
            finishGracefulClose();
        } else {
            // Posted operations normally complete (or fail once the transport gives up) well within
            // this bound; should the device never report them, close anyway so nothing hangs.
            CompletableFuture.delayedExecutor(gracefulCloseMillis, TimeUnit.MILLISECONDS).execute(() -> closeWithCause(
                    new RdmaClosedException("closed: operations still in flight after " + gracefulCloseMillis
                            + " ms of graceful close were failed")));
        }
    }

    private void finishGracefulClose() {
        Throwable cause;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            cause = closeCause;
        }
        closeWithCause(cause);
    }

    /** Closes now: every pending and queued operation fails with the cause; null cause = local close. */
    private void closeWithCause(Throwable cause) {
        List<ChannelOp> failed = new ArrayList<>();
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            boolean wasConnecting = state == State.CONNECTING;
            state = State.CLOSED;
            if (closeCause == null) {
                closeCause = cause;
            }
            for (int slot = 0; slot < depth; slot++) {
                if (ops[slot] != null) {
                    failed.add(ops[slot]);
                    ops[slot] = null;
                }
            }
            orderSize = 0;
            posts.clear();
            repostCount = 0;
            failed.addAll(queue);
            queue.clear();
            held.clear();
            if (!wasConnecting || keyed) {
                NativeChannel.disconnect0(handle);
            }
        }
        Throwable reported = closeCause;
        RdmaClosedException error = closedException();
        for (ChannelOp op : failed) {
            failOp(op, reported instanceof RdmaOperationException ? reported : error);
        }
        connected.completeExceptionally(reported != null ? reported : error);
        closed.complete(reported);
        ChannelHandler h = handler;
        if (h != null) {
            try {
                h.onClose(this, reported);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "ChannelHandler.onClose threw", e);
            }
        }
        markClosed();
    }

    private void closeWithCauseLater(Throwable cause) {
        // Called under the lock (e.g. a failed re-post): close outside it on the loop.
        context.runOnLoop(() -> closeWithCause(cause));
    }

    @Override
    void closeFromParent() {
        closeWithCause(new RdmaClosedException("the context was closed"));
    }

    private static void failOp(ChannelOp op, Throwable cause) {
        if (op.buffer != null) {
            op.buffer.release();
        }
        op.completeExceptionally(cause);
    }

    @Override
    protected String describe() {
        return "channel to " + remote;
    }

    @Override
    protected void free() {
        context.registry().unregister(this);
        try {
            NativeChannel.destroy0(context.handle(), handle);
        } finally {
            if (receive != null) {
                receive.markClosed();
            }
            if (atomicResults != null) {
                atomicResults.close();
            }
            context.childFreed(this);
        }
    }

    /** Also the state of the send side, for diagnosing an operation that does not complete. */
    @Override
    public String toString() {
        synchronized (lock) {
            StringBuilder inFlight = new StringBuilder();
            for (int i = 0; i < orderSize; i++) {
                int slot = postedOrder[(orderHead + i) % depth];
                ChannelOp op = ops[slot];
                inFlight.append(i == 0 ? "" : ", ").append(slot).append(':')
                        .append(op == null ? "none" : op.kind + (op.isDone() ? "(done)" : ""));
            }
            return describe() + " (" + state + ", " + (depth - freeCount) + " operations posted or waiting to be posted ["
                    + inFlight + "], " + posts.count() + " of them waiting for the end of the event-loop batch"
                    + (dirty ? " (flush pending)" : "") + ", " + queue.size() + " queued for credits or slots, " + credits
                    + " credits)";
        }
    }
}
