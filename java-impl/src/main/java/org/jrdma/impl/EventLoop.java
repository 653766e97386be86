package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import org.jrdma.AsyncEvent;
import org.jrdma.AsyncEventType;
import org.jrdma.PollMode;
import org.jrdma.RdmaClosedException;
import org.jrdma.RemoteBuffer;

/**
 * The context's event loop. Its thread spends its time in native code (epoll on the completion
 * channel, the async-event fd and an eventfd, spinning on the CQ for a while first in the adaptive
 * mode, or all the time in the busy mode; {@link PollMode}) and comes back to Java once per batch
 * of up to {@link #BATCH} records, which it dispatches in place. With {@link PollMode#CALLER} there
 * is no such thread: the application's thread runs the same turns in {@link #progress}, one thread
 * at a time.
 */
final class EventLoop implements Runnable {
    static final int BATCH = 256;
    static final int WAIT_MILLIS = 200;
    private static final System.Logger LOG = System.getLogger("org.jrdma.context");

    private final JniContext context;
    private final long handle;
    private final BufferPool pool; // its idle slabs are retired between turns
    private final int pollMode; // how native code waits: PollMode's ordinal (layout line); CALLER's waits adapt
    private static final int ONE_PASS = PollMode.BUSY.ordinal(); // with timeout 0: one pass, no spin, no sleep
    private final EventRecords records;
    private final Thread thread; // null: the application's thread drives the loop (PollMode.CALLER)
    private final ReentrantLock driving = new ReentrantLock(); // CALLER: held by the thread inside progress
    private volatile Thread driver; // CALLER: the thread inside progress, or null
    private boolean woken; // the loop's thread or driver: the last turn saw a wake-up
    private int onePassTurns; // the loop's thread or driver: turns of timeout 0 (idle slabs looked at now and then)
    private volatile boolean stopping;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();

    EventLoop(JniContext context, long handle, PollMode pollMode, BufferPool pool) {
        this.context = context;
        this.handle = handle;
        this.pool = pool;
        this.records = new EventRecords(BATCH);
        if (pollMode == PollMode.CALLER) {
            this.pollMode = PollMode.ADAPTIVE.ordinal();
            this.thread = null;
        } else {
            this.pollMode = pollMode.ordinal();
            this.thread = new Thread(this, "jrdma-loop-" + context.device().name());
            this.thread.setDaemon(true);
        }
    }

    void start() {
        if (thread != null) {
            thread.start();
        }
    }

    /** Ends a wait of the loop soon (a progress call's too). */
    void wake() {
        NativeContext.wake0(handle);
    }

    void submit(Runnable task) {
        tasks.add(task);
        NativeContext.wake0(handle);
    }

    boolean inLoopThread() {
        Thread current = Thread.currentThread();
        return current == thread || current == driver;
    }

    /**
     * Asks the loop to stop and waits for it (unless called from the loop itself): for its thread to
     * end, or for the caller driving it to leave {@link #progress}.
     */
    void stop() {
        stopping = true;
        try {
            NativeContext.wake0(handle);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "waking the event loop failed", e);
        }
        if (thread == null) {
            if (!inLoopThread()) {
                driving.lock(); // the driver, woken, leaves native code; later calls see stopping
                driving.unlock();
            }
            return;
        }
        if (!inLoopThread()) {
            boolean interrupted = false;
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true; // finish closing; the native context must not be freed under the loop
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                // A bounded wait: the CQ is polled at least every WAIT_MILLIS even if a notification were lost.
                turn(WAIT_MILLIS);
            }
        } catch (Throwable t) {
            if (!stopping) {
                LOG.log(Level.ERROR, "event loop of " + context.device().name() + " failed", t);
                context.fail(t);
            }
        } finally {
            context.loopExited();
        }
    }

    /**
     * PollMode.CALLER: turns of the loop on the calling thread until one handled something, a
     * wake-up came or {@code timeoutNanos} passed (0: one turn that does not wait). Returns the
     * events and tasks handled.
     */
    int progress(long timeoutNanos) {
        if (thread != null) {
            throw new IllegalStateException("the context polls on its own thread (PollMode." + PollMode.values()[pollMode]
                    + "); progress() drives only a context opened with PollMode.CALLER");
        }
        if (driving.isHeldByCurrentThread()) {
            throw new IllegalStateException("progress() called from a callback of progress()");
        }
        if (!driving.tryLock()) {
            throw new IllegalStateException("another thread is driving the context (one thread at a time)");
        }
        driver = Thread.currentThread();
        boolean turned = false;
        try {
            // A timeout of 0 is one pass, the call a spinning caller makes millions of times: it reads no
            // clock (under emulation a clock read costs more than the rest of an empty pass).
            long deadline = timeoutNanos == 0 ? 0 : System.nanoTime() + timeoutNanos;
            int handled;
            do {
                if (stopping) {
                    throw new RdmaClosedException(context.describe() + " is closed");
                }
                turned = true;
                if (timeoutNanos == 0) {
                    return turn(0);
                }
                long left = deadline - System.nanoTime();
                handled = turn(left <= 0 ? 0 : (int) Math.min(WAIT_MILLIS, Math.max(1, left / 1_000_000)));
            } while (handled == 0 && !woken && deadline - System.nanoTime() > 0);
            return handled;
        } finally {
            driver = null;
            driving.unlock();
            if (turned && stopping) {
                context.loopExited(); // closed during this call (from a callback): the native context may go now
            }
        }
    }

    /** One turn: records from native code dispatched, then the tasks, then the batch's posts. */
    private int turn(int timeoutMillis) {
        int n = NativeContext.waitEvents0(handle, records.address(), records.capacity(), timeoutMillis,
                timeoutMillis == 0 ? ONE_PASS : pollMode);
        int handled = 0;
        woken = false;
        for (int i = 0; i < n; i++) {
            if (records.kind(i) == EventRecords.KIND_WAKEUP) {
                woken = true;
            } else {
                handled++;
            }
            try {
                dispatch(i);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "dispatching an event of " + context.device().name() + " failed", e);
            }
        }
        for (Runnable task; (task = tasks.poll()) != null;) {
            handled++;
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "event-loop task failed", e);
            }
        }
        // Posts and re-posts queued by the callbacks and tasks of this batch: one native call per channel.
        context.registry().flushDirty();
        // A turn that may have waited (the loop thread's, a caller's timed progress) looks at the clock
        // for idle slabs; one-pass turns of a spinning caller every 256th time.
        if (timeoutMillis > 0 || (++onePassTurns & 255) == 0) {
            pool.retireIdleSlabs(System.nanoTime());
        }
        return handled;
    }

    /** One route: channel records by key (one table lookup), the rest to the context. */
    private void dispatch(int i) {
        int kind = records.kind(i);
        switch (kind) {
            case EventRecords.KIND_INCOMING:
                context.onIncoming(records.key(i), records.incomingChannelHandle(i), records.listenerHandle(i));
                return;
            case EventRecords.KIND_ADMISSION_REQUEST: // c = request handle, d = listener handle
                JniServer.decide(context, context.registry().server(records.d(i)), records.c(i));
                return;
            case EventRecords.KIND_INCOMING_REJECTED:
                context.onIncomingRejected(records.listenerHandle(i), records.rejectReason(i), records.rejectedPeerValue(i));
                return;
            case EventRecords.KIND_ASYNC_EVENT:
                AsyncEvent.Severity severity = AsyncEvent.Severity.values()[Math.min(records.asyncSeverity(i), 2)];
                context.onAsyncEvent(new AsyncEvent(AsyncEventType.fromVerbs(records.asyncType(i)), records.asyncPort(i), severity));
                return;
            case EventRecords.KIND_DEVICE_REMOVED:
                context.onDeviceRemoved();
                return;
            case EventRecords.KIND_WAKEUP:
                return; // the tasks run after the batch; the loop condition is checked next
            default:
                break;
        }
        JniChannel channel = context.registry().byKey(records.key(i));
        if (channel == null) {
            return; // the channel is gone: a late record
        }
        switch (kind) {
            case EventRecords.KIND_OP_DONE:
                channel.onOpDone(records.opSeq(i), records.opStatus(i), records.opResult(i));
                break;
            case EventRecords.KIND_OPS_UNPOSTED:
                channel.onOpsUnposted(records.firstUnpostedSeq(i));
                break;
            case EventRecords.KIND_MESSAGE:
                channel.onMessage(records.receiveSlot(i), records.messageLength(i), records.messageId(i));
                break;
            case EventRecords.KIND_IMMEDIATE:
                channel.onImmediate(records.receiveSlot(i), records.immediate(i));
                break;
            case EventRecords.KIND_TRANSFER_NEEDS_BUFFER:
                channel.deliveries.onTransferNeedsBuffer(records.transferId(i), records.transferLength(i));
                break;
            case EventRecords.KIND_LARGE_MESSAGE:
                channel.deliveries.onLargeMessage(records.messageId(i), records.messageLength(i));
                break;
            case EventRecords.KIND_RECEIVE_DONE:
                channel.onReceiveDone(records.receiveSeq(i), records.receiveStatus(i), records.receivedLength(i),
                        records.receiveDetail(i));
                break;
            // The agent's records: fields as native/src/protocol/event_record.h gives them.
            case EventRecords.KIND_AGENT_REQUEST: // a = rights, c = request id, d = size
                channel.agent.onRequest(records.c(i), records.a(i), records.d(i));
                break;
            case EventRecords.KIND_AGENT_REPLY: // a = status, b = rkey, c = our seq, d = address or detail
                channel.agent.onReply(records.c(i), records.a(i), records.b(i), records.d(i));
                break;
            case EventRecords.KIND_AGENT_RELEASE: // c = address (the engine matched key and length)
                channel.agent.onRelease(records.c(i));
                break;
            case EventRecords.KIND_TOKEN: // b = rkey, c = address, d = length
                channel.deliveries.onToken(new RemoteBuffer(records.c(i), records.d(i), records.b(i)));
                break;
            case EventRecords.KIND_CHANNEL_OPEN:
                channel.onOpen(records.peerCredits(i), records.peerMaxMessage(i));
                break;
            case EventRecords.KIND_CHANNEL_CLOSED:
                channel.onClosed(records.closedCause(i), records.closedCode(i), records.closedDetail(i), records.closedDetail2(i));
                break;
            default:
                LOG.log(Level.WARNING, "unknown event record kind " + kind);
        }
    }
}
