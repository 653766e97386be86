package org.jrdma.kv;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jrdma.Access;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaException;
import org.jrdma.RegisteredBuffer;

/**
 * The write slots a {@link KvServer} gave one worker's channel: per key, memory of exactly the value's
 * length that only this worker may write (a token with REMOTE_WRITE alone, dying with the slot). The
 * worker writes a pushed value into it with immediate data = the slot id; the server then folds it in.
 * Ids count up from 0 per channel. Used on the server's event-loop thread only.
 */
final class WorkerSlots {
    private record Slot(long key, RegisteredBuffer buffer, int length) {
    }

    private final List<Slot> slots = new ArrayList<>();
    private final Set<Long> keys = new HashSet<>();
    private long bytes;

    /**
     * Gives the worker a slot for {@code key} when the value is large enough to gain from it and the
     * worker's budget allows: a SLOT message, then the slot's token (the worker pairs them in order).
     */
    void offer(RdmaContext context, RdmaChannel channel, long key, int length, KvOptions options) {
        if (length < options.slotMinBytes() || keys.contains(key) || bytes + length > options.maxSlotBytesPerWorker()) {
            return;
        }
        RegisteredBuffer buffer;
        RegisteredBuffer message;
        try {
            buffer = context.allocate(length);
            message = context.allocate(KvWire.SLOT_SIZE);
        } catch (RdmaException closing) {
            return;
        }
        int id = slots.size();
        slots.add(new Slot(key, buffer, length));
        keys.add(key);
        bytes += length;
        ByteBuffer b = KvWire.le(message.buffer());
        KvWire.header(b, KvWire.SLOT, 0, 1, 0);
        b.putLong(KvWire.HEADER, key).putInt(KvWire.HEADER + 8, id).putInt(KvWire.HEADER + 12, length);
        channel.send(message, 0, KvWire.SLOT_SIZE).whenComplete((v, t) -> message.close());
        channel.sendToken(buffer, Access.REMOTE_WRITE);
    }

    /** The key of slot {@code id}; a slot this channel was never given is a protocol violation. */
    long key(int id) {
        return slot(id).key;
    }

    /** The bytes the worker wrote into slot {@code id}. */
    ByteBuffer written(int id) {
        Slot s = slot(id);
        return s.buffer.buffer().limit(s.length).slice();
    }

    /** Frees every slot (their tokens die with them): the channel closed. */
    void close() {
        slots.forEach(s -> s.buffer.close());
        slots.clear();
        keys.clear();
    }

    private Slot slot(int id) {
        if (id < 0 || id >= slots.size()) {
            throw new ProtocolException("a write with immediate " + id + " names no slot of this worker (it has "
                    + slots.size() + ")");
        }
        return slots.get(id);
    }
}
