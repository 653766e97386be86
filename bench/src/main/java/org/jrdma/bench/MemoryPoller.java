package org.jrdma.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Spins on an 8-byte word that a peer's RDMA WRITE changes (as perftest's write_lat does). */
final class MemoryPoller {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private MemoryPoller() {
    }

    /**
     * Waits until the word at index holds value; false if the deadline passes first. {@code every64}
     * (null: none) runs every 64 spins: without RDMA the peer's write is placed by this process's own
     * event loop — its thread, which may share the CPU with this spinning one (yield to it), or this
     * very thread when the context is caller-driven (drive it); with a device nothing here places it,
     * and the spin stays pure, as perftest's.
     */
    static boolean await(ByteBuffer memory, int index, long value, long deadlineNanos, Runnable every64) {
        int spins = 0;
        while ((long) LONGS.getVolatile(memory, index) != value) {
            if (every64 != null && (spins & 63) == 63) {
                every64.run();
            }
            if (++spins == 1 << 16) {
                spins = 0;
                if (System.nanoTime() > deadlineNanos) {
                    return false;
                }
            }
            Thread.onSpinWait();
        }
        return true;
    }

    /** Whether the word at index holds value now (one look). */
    static boolean holds(ByteBuffer memory, int index, long value) {
        return (long) LONGS.getVolatile(memory, index) == value;
    }

    static void put(ByteBuffer memory, int index, long value) {
        LONGS.setVolatile(memory, index, value);
    }
}
