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
     * Waits until the word at index holds value; false if the deadline passes first. {@code yielding}:
     * without RDMA the peer's write is placed by this process's own event-loop thread, which may
     * share the CPU with this spinning thread: let it run now and then (with a device nothing here
     * places it, and the spin stays pure, as perftest's).
     */
    static boolean await(ByteBuffer memory, int index, long value, long deadlineNanos, boolean yielding) {
        int spins = 0;
        while ((long) LONGS.getVolatile(memory, index) != value) {
            if (yielding && (spins & 63) == 63) {
                Thread.yield();
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

    static void put(ByteBuffer memory, int index, long value) {
        LONGS.setVolatile(memory, index, value);
    }
}
