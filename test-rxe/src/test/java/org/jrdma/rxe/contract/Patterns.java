package org.jrdma.rxe.contract;

import java.nio.ByteBuffer;

/**
 * Message contents that identify themselves: the first long is the message's seed, every later
 * long (and byte of the tail) a function of seed and position, so a receiver can check a message of
 * any size without a copy of it — also in another process.
 */
public final class Patterns {
    private static final long STEP = 0x9E3779B97F4A7C15L;

    private Patterns() {
    }

    /** Fills [offset, offset + length) with the pattern of seed (length >= 1). */
    public static void fill(ByteBuffer buffer, int offset, int length, long seed) {
        int longs = length / 8;
        for (int i = 0; i < longs; i++) {
            buffer.putLong(offset + 8 * i, i == 0 ? seed : seed + i * STEP);
        }
        for (int i = longs * 8; i < length; i++) {
            buffer.put(offset + i, (byte) (seed + i));
        }
    }

    /** The seed of a message filled by {@link #fill} (messages of 8 bytes or more). */
    public static long seedOf(ByteBuffer payload) {
        return payload.getLong(0);
    }

    /** Null when [0, length) of payload is the pattern of seed, else where it differs. */
    public static String check(ByteBuffer payload, int length, long seed) {
        int longs = length / 8;
        for (int i = 0; i < longs; i++) {
            long expected = i == 0 ? seed : seed + i * STEP;
            if (payload.getLong(8 * i) != expected) {
                return "message " + seed + " of " + length + " bytes differs at byte " + 8 * i;
            }
        }
        for (int i = longs * 8; i < length; i++) {
            if (payload.get(i) != (byte) (seed + i)) {
                return "message " + seed + " of " + length + " bytes differs at byte " + i;
            }
        }
        return null;
    }
}
