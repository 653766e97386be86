package org.jrdma.kv;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * The push/pull messages (docs/kv.md), little-endian, checked field by field before use: a
 * violation is a {@link ProtocolException} that ends the channel.
 */
final class KvWire {
    static final byte PUSH = 1;
    static final byte ACK = 2;
    static final byte PULL = 3;
    static final byte PULLED = 4;
    static final byte SLOT = 5;
    static final byte SLOT_ACK = 6;
    static final byte BARRIER = 7;
    static final byte PUSHPULL = 8;
    static final byte SLOT_PUSHPULL = 9;

    static final int HEADER = 16;      // type, status, 2 reserved, u32 count, u64 timestamp
    static final int PUSH_ENTRY = 16;  // u64 key, u32 length, u32 reserved
    static final int PULL_ENTRY = 24;  // u64 key, u64 address, u32 rkey, u32 capacity
    static final int PUSHPULL_ENTRY = 32;  // u64 key, u32 length, u32 reserved, u64 address, u32 rkey, u32 capacity
    static final int SLOT_PUSHPULL_ENTRY = 24;  // u32 slot id, u32 length, u64 address, u32 rkey, u32 capacity
    static final int SLOT_SIZE = 32;   // header, u64 key, u32 slot id, u32 length
    static final int MAX_BARRIER = 65536;

    /** ACK/PULLED status. */
    static final int OK = 0;
    static final int UNKNOWN_KEY = 1;
    static final int WRONG_LENGTH = 2;
    static final int TOO_SMALL = 3;
    static final int MERGE_FAILED = 4;
    static final int BARRIER_MISMATCH = 5;
    static final int BARRIER_BROKEN = 6;
    static final int DUPLICATE_KEY = 7;
    static final int OVER_QUOTA = 8;
    static final int APPLIED_TOO_SMALL = 9; // a PushPull's push applied; a value outgrew its destination before the answer

    private KvWire() {
    }

    /**
     * Runs the handling of what a peer sent; a {@link ProtocolException} from it closes that channel
     * only (logged as "closing the channel {@code peer} address: why").
     */
    static void guarded(RdmaChannel channel, String peer, Runnable handling) {
        try {
            handling.run();
        } catch (ProtocolException violation) {
            // Once: messages already queued behind the first violation arrive while it closes.
            System.getLogger("org.jrdma.kv").log(channel.isOpen() ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
                    "closing the channel " + peer + " " + channel.remoteAddress() + ": " + violation.getMessage());
            channel.close();
        }
    }

    static ByteBuffer le(ByteBuffer b) {
        return b.order(ByteOrder.LITTLE_ENDIAN);
    }

    static void header(ByteBuffer out, byte type, int status, int count, long timestamp) {
        le(out).put(0, type).put(1, (byte) status).putShort(2, (short) 0).putInt(4, count).putLong(8, timestamp);
    }

    /** The entry count of a request, checked against the message length and the server's limit. */
    static int count(ByteBuffer in, int entrySize, int maxKeys) {
        le(in);
        int length = in.remaining();
        if (length < HEADER || in.get(1) != 0 || in.getShort(2) != 0) {
            throw new ProtocolException("a malformed push/pull header (" + length + " bytes)");
        }
        int count = in.getInt(4);
        if (count < 1 || count > maxKeys || (long) HEADER + (long) count * entrySize > length) {
            throw new ProtocolException("a push/pull of " + count + " keys in " + length + " bytes (at most " + maxKeys + ")");
        }
        return count;
    }

    /** A PULL of the keys {@code mine} (indexes into keys), each into its slot of {@code destination}. */
    static void encodePull(ByteBuffer out, long timestamp, long[] keys, int[] lengths, int[] mine,
                           RegisteredBuffer destination, int[] offsets) {
        header(out, PULL, 0, mine.length, timestamp);
        for (int j = 0; j < mine.length; j++) {
            int i = mine[j];
            int at = HEADER + j * PULL_ENTRY;
            out.putLong(at, keys[i]).putLong(at + 8, destination.address() + offsets[i]).putInt(at + 16, destination.rkey())
                    .putInt(at + 20, lengths[i]);
        }
    }

    /** A PUSHPULL of the keys {@code mine}: entries with their destinations, then the values back to back. */
    static void encodePushPull(ByteBuffer out, long timestamp, long[] keys, int[] lengths, int[] mine, ByteBuffer values,
                               int[] offsets, RegisteredBuffer destination) {
        header(out, PUSHPULL, 0, mine.length, timestamp);
        int valueAt = HEADER + mine.length * PUSHPULL_ENTRY;
        for (int j = 0; j < mine.length; j++) {
            int i = mine[j];
            int at = HEADER + j * PUSHPULL_ENTRY;
            out.putLong(at, keys[i]).putInt(at + 8, lengths[i]).putInt(at + 12, 0)
                    .putLong(at + 16, destination.address() + offsets[i]).putInt(at + 24, destination.rkey())
                    .putInt(at + 28, lengths[i]);
            out.put(valueAt, values, offsets[i], lengths[i]);
            valueAt += lengths[i];
        }
    }

    /**
     * A SLOT_PUSHPULL of the keys {@code mine}, whose values were written into {@code slots} (one per
     * key of mine, in order): each entry names the slot and where the merged value goes.
     */
    static void encodeSlotPushPull(ByteBuffer out, long timestamp, int[] lengths, int[] mine, PushSlots.Slot[] slots,
                                   RegisteredBuffer destination, int[] offsets) {
        header(out, SLOT_PUSHPULL, 0, mine.length, timestamp);
        for (int j = 0; j < mine.length; j++) {
            int i = mine[j];
            int at = HEADER + j * SLOT_PUSHPULL_ENTRY;
            out.putInt(at, slots[j].id).putInt(at + 4, lengths[i]).putLong(at + 8, destination.address() + offsets[i])
                    .putInt(at + 16, destination.rkey()).putInt(at + 20, lengths[i]);
        }
    }

    /** A worker's destination as its message names it; one that wraps around the address space is a violation. */
    static RemoteBuffer destination(long address, int length, int rkey) {
        if (address + length < address && address + length != 0) {
            throw new ProtocolException("a destination of " + length + " bytes at " + Long.toUnsignedString(address)
                    + " wraps around the address space");
        }
        return new RemoteBuffer(address, length, rkey);
    }

    static String status(int status) {
        switch (status) {
            case UNKNOWN_KEY: return "a key was never pushed";
            case WRONG_LENGTH: return "a value's length differs from the stored one's";
            case TOO_SMALL: return "a destination is smaller than the value";
            case MERGE_FAILED: return "the server's merge function refused a value";
            case BARRIER_MISMATCH: return "the workers in the barrier disagree on its size";
            case BARRIER_BROKEN: return "a worker in the barrier went away";
            case DUPLICATE_KEY: return "a key appears twice in one push";
            case OVER_QUOTA: return "the server's memory quota is full (KvOptions.maxStoredBytes): it takes no new keys";
            case APPLIED_TOO_SMALL: return "the push was applied, but before the server answered another push"
                    + " (an overwrite of another length) made a value larger than its destination: nothing was written back";
            default: return "status " + status;
        }
    }
}
