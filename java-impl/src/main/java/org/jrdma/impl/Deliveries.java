package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.ChannelHandler;
import org.jrdma.RemoteBuffer;
import org.jrdma.RdmaException;

/**
 * What a channel's handler receives, in the order the engine reports it (the peer's sending order):
 * eager messages in receive slots ({@link JniMessage}) and rendezvous messages read into a buffer
 * allocated here from the context's pool when the engine asks for one ({@link LargeMessage}).
 * Messages that arrive before the channel is open for the application or before it has a handler
 * are held and delivered in order once it is. Records arrive on the event-loop thread; the channel
 * may be closed from any thread. Lock order: never the channel's lock while holding this one.
 */
final class Deliveries {
    private static final System.Logger LOG = System.getLogger("org.jrdma.channel");
    private static final int ENOMEM = 12;

    private final JniChannel channel;
    private final JniMessage[] messages; // one per receive slot, over the native receive ring

    // Guarded by this.
    private final ArrayDeque<Object> held = new ArrayDeque<>(); // long[] {slot, length, id}, a LargeMessage or a token
    private final Map<Long, BufferBase> transferBuffers = new HashMap<>(); // by transfer (message) id
    private boolean open;
    private boolean closed;

    Deliveries(JniChannel channel, ByteBuffer ring, int depth, int eager) {
        this.channel = channel;
        this.messages = new JniMessage[depth];
        for (int slot = 0; slot < depth; slot++) {
            ByteBuffer view = ring.duplicate();
            view.clear().position(slot * eager + JniChannel.HEADER_BYTES).limit((slot + 1) * eager);
            messages[slot] = new JniMessage(channel, slot, view.slice().asReadOnlyBuffer());
        }
    }

    /** The channel is open for the application: what arrived before goes to the handler. */
    void open() {
        synchronized (this) {
            open = true;
        }
        deliverHeld();
    }

    /** An eager message in a receive slot. */
    void onMessage(int slot, int length, long id) {
        long[] message = {slot, length, id};
        if (!held(message)) {
            deliver(message);
        }
    }

    /** A rendezvous message is read completely into the buffer allocated for it. */
    void onLargeMessage(long id, int length) {
        BufferBase buffer;
        synchronized (this) {
            buffer = transferBuffers.remove(id);
        }
        if (buffer == null) {
            LOG.log(Level.ERROR, "no buffer for rendezvous message " + id + " of " + channel);
            return;
        }
        LargeMessage message = new LargeMessage(buffer, length, id);
        if (!held(message)) {
            deliver(message);
        }
    }

    /** The peer handed us a token (in order with its messages). */
    void onToken(RemoteBuffer token) {
        if (!held(token)) {
            deliver(token);
        }
    }

    /**
     * A rendezvous message passed the engine's limits and needs memory: a buffer of the context's pool
     * or a kept large block (registered for local write: the device reads into it). If there is none,
     * the engine refuses the message and the sender's send fails with the errno.
     */
    void onTransferNeedsBuffer(long id, long length) {
        BufferBase buffer;
        try {
            buffer = channel.context.transferBuffer(Math.toIntExact(length));
        } catch (RdmaException | OutOfMemoryError | ArithmeticException e) {
            int errno = e instanceof RdmaException && ((RdmaException) e).errno() != 0 ? ((RdmaException) e).errno() : ENOMEM;
            LOG.log(Level.WARNING, "no memory for a message of " + length + " bytes on " + channel + "; refused", e);
            channel.submitInternal(s -> s.addTransferBuffer(id, null, errno));
            return;
        }
        boolean kept;
        synchronized (this) {
            kept = !closed;
            if (kept) {
                transferBuffers.put(id, buffer);
            }
        }
        if (!kept) {
            buffer.close(); // the channel closed meanwhile
            return;
        }
        channel.submitInternal(s -> s.addTransferBuffer(id, buffer, 0));
    }

    /** Holds the message (no handler, not open yet, or older ones waiting); false when it is to be delivered now. */
    private boolean held(Object message) {
        synchronized (this) {
            if (closed) {
                discard(message);
                return true;
            }
            if (!open || channel.handler() == null || !held.isEmpty()) {
                held.add(message);
                return true;
            }
            return false;
        }
    }

    void deliverHeld() {
        for (;;) {
            Object next;
            synchronized (this) {
                if (closed || !open || channel.handler() == null || held.isEmpty()) {
                    return;
                }
                next = held.poll();
            }
            deliver(next);
        }
    }

    private void deliver(Object next) {
        if (next instanceof RemoteBuffer) {
            try {
                channel.handler().onToken(channel, (RemoteBuffer) next);
            } catch (Throwable t) {
                channel.callbackThrew("onToken", t);
            }
            return;
        }
        ReceivedMessage message;
        if (next instanceof long[]) {
            long[] m = (long[]) next;
            message = messages[(int) m[0]];
            message.arm((int) m[1], m[2]);
        } else {
            message = (LargeMessage) next;
        }
        ChannelHandler h = channel.handler();
        try {
            h.onMessage(channel, message);
        } catch (Throwable t) {
            channel.callbackThrew("onMessage", t);
        }
        message.handlerReturned();
    }

    /** Large messages never delivered give their buffers back; eager ones vanish with the ring. */
    private static void discard(Object message) {
        if (message instanceof LargeMessage) {
            ((LargeMessage) message).handlerReturned();
        }
    }

    /** The channel closed: nothing more is delivered; buffers of unfinished transfers are closed. */
    void close() {
        List<Object> dropped;
        List<BufferBase> buffers;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            dropped = new ArrayList<>(held);
            held.clear();
            buffers = new ArrayList<>(transferBuffers.values());
            transferBuffers.clear();
        }
        dropped.forEach(Deliveries::discard);
        buffers.forEach(BufferBase::close);
    }
}
