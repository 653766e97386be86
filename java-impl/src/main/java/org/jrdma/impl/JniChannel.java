package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jrdma.AuthenticationException;
import org.jrdma.ChannelCounters;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaOperationException;

/**
 * A channel: the Java face of a native channel engine (native/src/protocol/channel_engine.h), which
 * owns the protocol — credits, message ids, the send window, the receive ring, rendezvous, credit
 * messages and close. This class checks arguments, turns operations (and posted receives) into
 * futures and dispatches records; {@link Deliveries} hands messages to the {@link ChannelHandler}.
 *
 * <p>Submitting: an operation gets the next sequence number, joins {@link #pending} (submission order)
 * and becomes a 64-byte record in {@link #submissions}; a caller's thread hands it to the engine at
 * once, the event-loop thread (callbacks that submit the next operation) at the end of its batch —
 * one JNI call per batch either way. The engine reports every operation exactly once and in
 * submission order ({@code kOpDone}), or fails the tail it never posted ({@code kOpsUnposted}), or
 * closes the channel ({@code kChannelClosed}: everything still pending fails with the cause).
 *
 * <p>Threads: submitting runs on the caller's thread under {@link #lock}; records arrive on the
 * event-loop thread. No native call happens once the state is CLOSED.
 */
final class JniChannel extends NativeResource implements ChannelOperations {
    private static final System.Logger LOG = System.getLogger("org.jrdma.channel");
    static final int HEADER_BYTES = 16;
    /** Submissions buffered per channel between two JNI calls of the event-loop thread. */
    private static final int SUBMISSION_BATCH = 64;

    enum State { CONNECTING, OPEN, CLOSING, CLOSED }

    final JniContext context;
    final long contextHandle; // every native call about a channel names its context (jni/context_handle.h)
    final long handle;
    final int key;
    private final InetSocketAddress remote;
    private final int ownMaxMessage;
    private final Object lock = new Object();
    private final CompletableFuture<RdmaChannel> connected = new CompletableFuture<>();
    private final CompletableFuture<Throwable> closed = new CompletableFuture<>();
    final Deliveries deliveries;
    final RemoteMemoryAgent agent = new RemoteMemoryAgent(this);

    // Guarded by lock.
    private State state = State.CONNECTING;
    private Throwable closeCause;
    private long nextSeq;
    private final ArrayDeque<ChannelOp> pending = new ArrayDeque<>();
    private final ArrayDeque<ChannelOp> receives = new ArrayDeque<>(); // posted, filled in this order
    private final Submissions submissions = new Submissions(SUBMISSION_BATCH);
    private RdmaOperationException operationError; // the failed operation's, shared with the close
    volatile ChannelCounters finalCounters; // read at the close (null: it never closed through the engine)
    boolean countersJoined; // guarded by the context's ContextCounters: finalCounters are in its totals
    boolean dirty; // loop thread: has submissions for the end of the batch

    private volatile ChannelHandler handler;
    private volatile boolean opened; // onOpen was called
    /** Written once when the connection opens; read without the lock on every send. */
    private volatile int peerMaxMessage;
    private volatile InetSocketAddress local; // written once when the connection opens

    JniChannel(JniContext context, long handle, InetSocketAddress remote, RdmaConfig config,
               ChannelHandler handler) {
        this.context = context;
        this.contextHandle = context.handle();
        this.handle = handle;
        this.key = NativeChannel.key0(contextHandle, handle);
        this.remote = remote;
        this.ownMaxMessage = config.maxMessageSize();
        this.handler = handler;
        ByteBuffer ring = NativeChannel.ring0(contextHandle, handle).order(ByteOrder.LITTLE_ENDIAN);
        this.deliveries = new Deliveries(this, ring, config.queueDepth(), config.eagerSize());
    }

    CompletableFuture<RdmaChannel> connectedFuture() {
        return connected;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public int maxMessageSize() {
        int peer = peerMaxMessage;
        return peer > 0 ? peer : ownMaxMessage;
    }

    ChannelHandler handler() {
        return handler;
    }

    @Override
    public void setHandler(ChannelHandler newHandler) {
        this.handler = Objects.requireNonNull(newHandler, "handler");
        if (context.inLoopThread()) {
            deliveries.deliverHeld();
        } else {
            context.runOnLoop(deliveries::deliverHeld);
        }
    }

    // ---- submitting (caller's thread; the loop thread batches) -----------------------------------------

    RemoteMemoryAgent agent() {
        return agent;
    }

    @Override
    public JniChannel channel() {
        return this;
    }

    @Override
    public ChannelOp submit(ChannelOp op) {
        if (op.buffer != null) {
            op.buffer.acquire(); // a closed buffer is refused here; an open one stays registered until reported
        }
        synchronized (lock) {
            if (state != State.OPEN) {
                op.fail(closedException());
                return op;
            }
            op.seq = nextSeq++;
            op.timing = ChannelEvents.operationStarted(context.device().name(), remote, op.kind.verb, op.length);
            if (op.kind == ChannelOp.Kind.ALLOCATE_REMOTE) {
                agent.awaitReply(op); // answered by the peer, not in submission order
            } else {
                (op.kind == ChannelOp.Kind.RECEIVE ? receives : pending).addLast(op);
            }
            BufferBase buffer = op.buffer;
            roomLocked().addOperation(op, buffer == null ? 0 : buffer.registration.address + buffer.offset + op.offset,
                    buffer == null ? 0 : buffer.registration.lkey);
            submittedLocked();
        }
        return op;
    }

    /** A receive buffer is free again (message handled or released): the engine re-posts it. */
    void releaseReceive(int slot) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            roomLocked().addRelease(slot);
            submittedLocked();
        }
    }

    /** A submission of the channel's own (a transfer's destination, an agent's answer), for the engine. */
    void submitInternal(Consumer<Submissions> record) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return; // what it hands over is closed with the channel's deliveries or agent
            }
            record.accept(roomLocked());
            submittedLocked();
        }
    }

    /** The submission buffer with room for one more record (a full one goes to the engine first). */
    private Submissions roomLocked() {
        if (submissions.isFull()) {
            flushSubmissionsLocked();
        }
        return submissions;
    }

    /** A caller's thread submits now; the loop thread at the end of its batch (one JNI call for the batch). */
    private void submittedLocked() {
        if (!context.inLoopThread()) {
            flushSubmissionsLocked();
        } else if (!dirty) {
            dirty = true;
            context.registry().markDirty(this);
        }
    }

    /** End of an event-loop batch. */
    void flushBatch() {
        synchronized (lock) {
            dirty = false;
            flushSubmissionsLocked();
        }
    }

    private void flushSubmissionsLocked() {
        int count = submissions.count();
        submissions.clear();
        if (count == 0 || state == State.CLOSED) {
            return;
        }
        try {
            NativeChannel.submit0(contextHandle, handle, submissions.address(), count);
        } catch (RuntimeException | Error e) {
            // A malformed submission (a bug) or a failure at the JNI call itself: close the channel so
            // every pending operation fails exactly once, with this cause, instead of waiting forever.
            context.runOnLoop(() -> fail(e));
            if (e instanceof Error) {
                throw (Error) e;
            }
        }
    }

    // ---- records from the engine (loop thread) ---------------------------------------------------------

    void onOpen(int peerCredits, int maxMessage) {
        synchronized (lock) {
            if (state != State.CONNECTING) {
                return;
            }
            state = State.OPEN;
            peerMaxMessage = maxMessage;
        }
        local = NativeAddresses.parse(NativeChannel.address0(contextHandle, handle, true));
        connected.complete(this);
        ChannelEvents.opened(context.device().name(), remote);
        ChannelHandler h = handler;
        if (h != null) {
            opened = true;
            try {
                h.onOpen(this);
            } catch (Throwable t) {
                callbackThrew("onOpen", t);
            }
        }
        deliveries.open();
    }

    void onOpDone(long seq, int status, long result) {
        ChannelOp op;
        synchronized (lock) {
            op = pending.peekFirst();
            if (op == null || op.seq != seq) {
                if (state != State.CLOSED) { // after a close, Java has failed them all already
                    LOG.log(Level.ERROR, "engine reported operation " + seq + " of " + this + " out of order");
                }
                return;
            }
            pending.pollFirst();
        }
        if (status == WorkCompletion.SUCCESS) {
            op.succeed(op.kind.atomic() ? (Object) result : null);
            return;
        }
        String failure = WorkCompletion.failure(status);
        context.operationFailed(failure);
        ChannelEvents.operationFailed(context.device().name(), remote, op.kind.verb, failure);
        if (status >= EventRecords.PEER_BUFFER_TOO_SMALL) {
            op.fail(ConnectionFailures.rendezvousFailure(remote, status, op.length, result));
        } else if (status == WorkCompletion.WR_FLUSH_ERR) {
            op.fail(closedException()); // flushed by our own close
        } else {
            RdmaOperationException e = new RdmaOperationException(op.kind.verb, status, WorkCompletion.status(status));
            synchronized (lock) {
                operationError = e;
            }
            op.fail(e);
        }
    }

    void onOpsUnposted(long firstSeq) {
        List<ChannelOp> failed = new ArrayList<>();
        synchronized (lock) {
            while (!pending.isEmpty() && pending.peekLast().seq >= firstSeq) {
                failed.add(pending.pollLast());
            }
        }
        RdmaClosedException e = new RdmaClosedException("channel to " + remote + " was closed before the operation was posted");
        Collections.reverse(failed); // in submission order
        ChannelOp.failAll(failed, e);
        agent.unposted(firstSeq, e);
    }

    void onMessage(int slot, int length, long id) {
        deliveries.onMessage(slot, length, id);
    }

    /** A posted receive is filled (in posting order), or the message did not fit it. */
    void onReceiveDone(long seq, int status, int length, long detail) {
        ChannelOp op;
        synchronized (lock) {
            op = receives.peekFirst();
            if (op == null || op.seq != seq) {
                if (state != State.CLOSED) {
                    LOG.log(Level.ERROR, "engine reported receive " + seq + " of " + this + " out of order");
                }
                return;
            }
            receives.pollFirst();
        }
        if (status == EventRecords.RECEIVED) {
            op.succeed(length);
        } else {
            op.fail(ConnectionFailures.receiveTooSmall(remote, detail, op.length));
        }
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
        } catch (Throwable t) {
            callbackThrew("onImmediate", t);
        } finally {
            releaseReceive(slot);
        }
    }

    /** The engine closed the channel: the cause from the record, unless this side already has one. */
    void onClosed(int cause, int code, long detail, long detail2) {
        Throwable reported;
        synchronized (lock) {
            reported = cause == EventRecords.CLOSED_OPERATION_FAILED && operationError != null
                    && operationError.status() == code ? operationError : null;
        }
        if (reported == null && cause == EventRecords.CLOSED_CONNECT_FAILED && code == 4 && (detail2 & 0xffff) == 11) {
            reported = ConnectionFailures.admissionRefused(remote, detail2 >>> 16, NativeChannel.refusalText0(contextHandle, handle));
        } else if (reported == null) {
            String why = cause == EventRecords.CLOSED_OPERATION_FAILED ? NativeChannel.failureText(contextHandle, handle) : "";
            reported = ConnectionFailures.closeCause(remote, cause, code, detail, detail2, why);
        }
        finishClose(reported);
    }

    /**
     * Nothing a callback throws stops the event loop: a RuntimeException is logged and the channel goes
     * on; an Error (an assertion, a stack overflow, out of memory) is logged and closes this channel
     * with it as the cause — every pending operation fails, other channels are not affected.
     */
    void callbackThrew(String callback, Throwable t) {
        if (t instanceof Error) {
            LOG.log(Level.ERROR, "ChannelHandler." + callback + " threw an Error; closing " + this, t);
            fail(t);
        } else {
            LOG.log(Level.WARNING, "ChannelHandler." + callback + " threw", t);
        }
    }

    // ---- closing --------------------------------------------------------------------------------------

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

    /**
     * Graceful: operations not posted yet fail, posted ones complete (bounded by twice the transport's
     * give-up time, then they fail), then the engine reports the close.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (state == State.CLOSING || state == State.CLOSED) {
                return;
            }
            if (state == State.CONNECTING) {
                closeCause = new RdmaClosedException("closed while connecting");
            }
            state = State.CLOSING;
            flushSubmissionsLocked(); // what was submitted in this batch is posted, then completes
            NativeChannel.close0(contextHandle, handle);
        }
    }

    /** Closes now with the cause (connect timeout, fatal device event, a failed submission). */
    void fail(Throwable cause) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            closeCause = closeCause != null ? closeCause : cause;
            NativeChannel.abort0(contextHandle, handle);
        }
        finishClose(cause);
    }

    @Override
    void closeFromParent() {
        fail(new RdmaClosedException("the context was closed"));
    }

    /** Every operation still pending fails with the cause (null = local close); exactly once. */
    private void finishClose(Throwable cause) {
        List<ChannelOp> failed;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            finalCounters = new ChannelCounters(NativeChannel.counters0(contextHandle, handle)); // the engine goes with the channel
            state = State.CLOSED;
            closeCause = closeCause != null ? closeCause : cause;
            failed = new ArrayList<>(pending);
            failed.addAll(receives);
            pending.clear();
            receives.clear();
            submissions.clear();
        }
        try {
            deliveries.close();
            Throwable reported = closeCause;
            RdmaClosedException error = closedException();
            agent.close(error);
            ChannelOp.failAll(failed, reported instanceof RdmaOperationException ? reported : error);
            connected.completeExceptionally(reported != null ? reported : error);
            ChannelHandler h = handler;
            if (!opened && reported instanceof AuthenticationException) {
                LOG.log(Level.WARNING, reported.getMessage()); // an incoming one has no future to carry it
            }
            if (h != null && opened) { // a channel that never opened for the application does not close for it
                try {
                    h.onClose(this, reported);
                } catch (Throwable t) {
                    LOG.log(Level.WARNING, "ChannelHandler.onClose threw", t);
                }
            }
            if (opened) { // as onClose: a refused or failed connect never opened, so it records no close either
                ChannelEvents.closed(context.device().name(), remote, reported, finalCounters);
            }
            closed.complete(reported); // after onClose: whoever waits for it sees the handler's work done
        } finally {
            markClosed(); // the native channel and its use of the context go even if a step above threw
        }
    }

    @Override
    protected String describe() {
        return "channel to " + remote;
    }

    @Override
    protected void free() {
        context.registry().unregister(this);
        context.channelFreeing(this); // while the native counters can still be read
        try {
            NativeChannel.destroy0(context.handle(), handle);
        } finally {
            context.childFreed(this);
        }
    }

    @Override
    public ChannelCounters counters() {
        synchronized (lock) {
            return state == State.CLOSED ? finalCounters : new ChannelCounters(NativeChannel.counters0(contextHandle, handle));
        }
    }

    /** Also the engine's state and the queue pair, for diagnosing an operation that does not complete. */
    @Override
    public String toString() {
        synchronized (lock) {
            String engine = state == State.CLOSED ? "" : "; engine: " + NativeChannel.describe0(contextHandle, handle)
                    + (state == State.CONNECTING ? "" : "; " + NativeChannel.queuePair0(contextHandle, handle));
            return describe() + " (" + state + ", " + pending.size() + " operations pending, " + submissions.count()
                    + " submissions waiting for the end of the event-loop batch" + engine + ")";
        }
    }
}
