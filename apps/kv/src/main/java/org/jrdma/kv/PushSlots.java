package org.jrdma.kv;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.ProtocolException;
import org.jrdma.RemoteBuffer;

/**
 * The write slots one server gave this worker (the other side of {@link WorkerSlots}): a SLOT message
 * announces key, id and length, the token that follows it in channel order makes the slot usable. A
 * slot carries one push at a time: claimed with the push's timestamp, free again at its SLOT_ACK (the
 * server has folded the bytes in by then, so the next write cannot overwrite unread ones).
 */
final class PushSlots {
    static final class Slot {
        final long key;
        final int id;
        final int length;
        RemoteBuffer token;                         // set on the loop thread before the slot is published
        final AtomicLong busyWith = new AtomicLong(); // the timestamp of the push using it; 0 when free

        Slot(long key, int id, int length) {
            this.key = key;
            this.id = id;
            this.length = length;
        }
    }

    private final Map<Long, Slot> byKey = new ConcurrentHashMap<>();
    private final CopyOnWriteArrayList<Slot> byId = new CopyOnWriteArrayList<>();
    private final ArrayDeque<Slot> awaitingToken = new ArrayDeque<>(); // the loop thread's

    /** A SLOT message: checked, then held until its token arrives. Loop thread. */
    void announced(ByteBuffer in) {
        if (in.remaining() != KvWire.SLOT_SIZE || in.get(1) != 0 || in.getShort(2) != 0 || in.getInt(4) != 1) {
            throw new ProtocolException("a malformed SLOT (" + in.remaining() + " bytes)");
        }
        long key = in.getLong(KvWire.HEADER);
        int id = in.getInt(KvWire.HEADER + 8);
        int length = in.getInt(KvWire.HEADER + 12);
        int expected = byId.size() + awaitingToken.size();
        if (id != expected || length < 1 || byKey.containsKey(key) || awaitingToken.stream().anyMatch(s -> s.key == key)) {
            throw new ProtocolException("a SLOT with id " + id + " (next is " + expected + "), length " + length
                    + " for key " + key + (byKey.containsKey(key) ? ", which has one" : ""));
        }
        awaitingToken.add(new Slot(key, id, length));
    }

    /** The token of the oldest announced slot. Loop thread. */
    void token(RemoteBuffer token) {
        Slot slot = awaitingToken.poll();
        if (slot == null || token.length() < slot.length) {
            throw new ProtocolException(slot == null ? "a token no SLOT announced"
                    : "a slot token of " + token.length() + " bytes for a slot of " + slot.length);
        }
        slot.token = token;
        byId.add(slot);
        byKey.put(slot.key, slot);
    }

    /** {@return how many slots are usable} */
    int size() {
        return byKey.size();
    }

    /** A free slot for key that takes exactly {@code length} bytes, now busy with {@code timestamp}; or null. */
    Slot claim(long key, int length, long timestamp) {
        Slot slot = byKey.get(key);
        return slot != null && slot.length == length && slot.busyWith.compareAndSet(0, timestamp) ? slot : null;
    }

    /**
     * A free slot of the exact length for each of the keys {@code mine} (indexes into keys), all busy
     * with {@code timestamp}; or null, none claimed, when one of them has none.
     */
    Slot[] claimAll(long[] keys, int[] lengths, int[] mine, long timestamp) {
        Slot[] claimed = new Slot[mine.length];
        for (int j = 0; j < mine.length; j++) {
            claimed[j] = claim(keys[mine[j]], lengths[mine[j]], timestamp);
            if (claimed[j] == null) {
                for (int k = 0; k < j; k++) {
                    release(claimed[k]);
                }
                return null;
            }
        }
        return claimed;
    }

    /** A SLOT_ACK for slot {@code id}: frees it and returns the timestamp of the push it carried. */
    long acknowledged(long id) {
        Slot slot = id >= 0 && id < byId.size() ? byId.get((int) id) : null;
        long timestamp = slot == null ? 0 : slot.busyWith.getAndSet(0);
        if (timestamp == 0) {
            throw new ProtocolException("a SLOT_ACK for slot " + id + ", which carries no push");
        }
        return timestamp;
    }

    /** A push using the slot failed before the server answered: the slot is free for the next one. */
    static void release(Slot slot) {
        slot.busyWith.set(0);
    }
}
