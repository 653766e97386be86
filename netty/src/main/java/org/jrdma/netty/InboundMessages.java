package org.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaMessage;

/**
 * What a jrdma channel reports, brought to its Netty channel's loop in order and read as Netty asks.
 * jrdma calls this handler on the thread that drives the channel's context — the channel's own loop
 * for a client, the server channel's loop for an accepted one — so events pass through a queue that
 * the channel's loop drains (directly when the two are the same thread, or once the channel is
 * registered). Messages are read ({@code fireChannelRead}) only while Netty asked for a read: with
 * auto-read off they wait here. A small message is copied, so its jrdma receive buffer is free again
 * at once: a message held by the pipeline, as decoders and gRPC's deframer hold bytes until a frame is
 * whole, must not pin jrdma's receive ring (the peer could not send the rest). A large one lies in a
 * buffer of its own and is handed on as it is ({@link ReceivedByteBuf}).
 */
final class InboundMessages implements ChannelHandler {
    /** The peer closed the channel or it failed: after what arrived before is read, the channel closes. */
    private record PeerClosed(Throwable cause) { }

    private final RdmaSocketChannel channel;
    private final Queue<Object> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = () -> {
        drainScheduled.set(false);
        drain();
    };
    // The channel's loop only:
    private volatile EventLoop loop; // set when the channel is registered
    private final ArrayDeque<ByteBuf> readable = new ArrayDeque<>();
    private boolean draining;
    private boolean readRequested;
    private boolean deliveryScheduled;
    private PeerClosed peerClosed; // the jrdma channel ended: once what arrived before is read, so does this one

    InboundMessages(RdmaSocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public void onMessage(RdmaChannel rdma, RdmaMessage message) {
        ByteBufAllocator alloc = channel.config().getAllocator();
        if (!message.holdsReceiveBuffer()) {
            post(ReceivedByteBuf.of(alloc, message)); // a large message, in a buffer of its own: no copy
            return;
        }
        ByteBuf copy = alloc.directBuffer(message.length());
        copy.writeBytes(message.payload());
        post(copy);
    }

    @Override
    public void onClose(RdmaChannel rdma, Throwable cause) {
        post(new PeerClosed(cause));
    }

    /** The channel is registered with {@code loop}, which drains the inbox from now on (also after a deregistration). */
    void registeredWith(EventLoop loop) {
        this.loop = loop;
        drain(); // events that came before the channel had a loop
    }

    /** Queues an event (a message, a close or a task) for the channel's loop; from any thread. */
    void post(Object event) {
        inbox.add(event);
        EventLoop target = loop;
        if (target == null) {
            if (!channel.isOpen()) {
                discardInbox(); // closed before it ever had a loop: nothing will drain it
            }
            return; // else drained once registered
        }
        if (target.inEventLoop()) {
            drain();
        } else if (drainScheduled.compareAndSet(false, true)) {
            try {
                target.execute(drainTask);
            } catch (RejectedExecutionException loopShutDown) {
                drainScheduled.set(false);
                discardInbox();
            }
        }
    }

    /** Takes what the inbox holds, in order (the channel's loop). */
    private void drain() {
        if (draining) {
            return; // an event handled below posted another: the loop below takes it
        }
        draining = true;
        try {
            for (Object event = inbox.poll(); event != null; event = inbox.poll()) {
                if (event instanceof ByteBuf message) {
                    if (channel.isOpen()) {
                        readable.add(message);
                    } else {
                        message.release();
                    }
                } else if (event instanceof Runnable task) {
                    task.run();
                } else if (event instanceof PeerClosed closed) {
                    peerClosed = closed;
                }
            }
        } finally {
            draining = false;
        }
        deliver();
    }

    /** Netty asked for a read (auto-read asks after each batch): messages waiting are read soon. */
    void readRequested() {
        readRequested = true;
        if ((!readable.isEmpty() || peerClosed != null) && !deliveryScheduled) {
            deliveryScheduled = true; // not now: doBeginRead is called from within the pipeline
            channel.eventLoop().execute(() -> {
                deliveryScheduled = false;
                deliver();
            });
        }
    }

    /**
     * One read, as a socket channel's read loop does it: pieces of what arrived, each as large as the
     * channel's {@link RecvByteBufAllocator} guesses (a slice of what was received, not a copy),
     * for as long as the allocator continues — it stops after one piece once auto-read is off.
     */
    private void deliver() {
        if (readRequested && !readable.isEmpty() && channel.isActive()) {
            ChannelPipeline pipeline = channel.pipeline();
            RecvByteBufAllocator.Handle handle = channel.unsafe().recvBufAllocHandle();
            handle.reset(channel.config());
            do {
                ByteBuf head = readable.peek();
                int guess = Math.max(1, handle.guess());
                ByteBuf piece = head.readableBytes() <= guess ? readable.poll() : head.readRetainedSlice(guess);
                // What is queued is known: a full guess unless this piece was the last, so the allocator goes on.
                handle.attemptedBytesRead(readable.isEmpty() ? guess : piece.readableBytes());
                handle.lastBytesRead(piece.readableBytes());
                handle.incMessagesRead(1);
                readRequested = false; // each piece answers the reads asked for before it, as a socket's read loop does
                pipeline.fireChannelRead(piece);
            } while (!readable.isEmpty() && channel.isOpen() && handle.continueReading());
            handle.readComplete();
            pipeline.fireChannelReadComplete();
        }
        if (peerClosed != null && readable.isEmpty() && channel.isOpen()) {
            channel.peerClosed(peerClosed.cause());
        }
    }

    /** {@return what waits to be read and why it may wait (the channel's loop)} */
    String describe() {
        long bytes = 0;
        for (ByteBuf message : readable) {
            bytes += message.readableBytes();
        }
        return "inbox " + inbox.size() + ", readable " + readable.size() + "/" + bytes + " B, readRequested=" + readRequested
                + " deliveryScheduled=" + deliveryScheduled + " drainScheduled=" + drainScheduled.get() + " peerClosed="
                + (peerClosed != null);
    }

    /** The channel closed: what was not read is dropped (the channel's loop). */
    void discard() {
        for (ByteBuf message = readable.poll(); message != null; message = readable.poll()) {
            message.release();
        }
        discardInbox();
    }

    /**
     * Drops the queued messages and runs the queued tasks (which only close what opened late once the
     * channel is closed); from any thread when no loop will drain the inbox any more.
     */
    private void discardInbox() {
        for (Object event = inbox.poll(); event != null; event = inbox.poll()) {
            if (event instanceof ByteBuf message) {
                message.release();
            } else if (event instanceof Runnable task) {
                task.run();
            }
        }
    }
}
