package org.jrdma.impl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Registered blocks above the pool's largest size class, for messages read by rendezvous and for
 * {@code allocate} of local-only memory: block sizes are powers of two from 2 MiB to 1 GiB (a larger
 * request gets a block of its own size), and a released block stays registered for the next request
 * of its size, up to a bound of idle bytes (beyond it the block is deregistered and its memory left to
 * the garbage collector). Without it every large message or buffer cost a zeroed allocateDirect, an
 * ibv_reg_mr and an ibv_dereg_mr — and, once the JVM's direct-memory limit was near, the collector
 * pauses allocateDirect waits for (4 MiB allocate + close took 13.6 ms over TCP; docs/performance.md,
 * "Rendezvous"). Local write only: nothing remote reaches them. Like the pool's blocks, a reused block
 * holds what its last user left; its buffer has the size asked for, the rest of the block is not
 * reachable through it.
 */
final class LargeBlocks {
    static final int MIN_BLOCK = BufferPool.MAX_CLASS * 2;
    private static final int MAX_POWER_OF_TWO = 1 << 30;

    private final JniContext context;
    private final long maxIdleBytes;
    // Guarded by this.
    private final Map<Integer, ArrayDeque<MemoryRegistration>> idle = new HashMap<>();
    private long idleBytes;
    private boolean closed;

    LargeBlocks(JniContext context, long maxIdleBytes) {
        this.context = context;
        this.maxIdleBytes = maxIdleBytes;
    }

    static int blockSize(int size) {
        if (size > MAX_POWER_OF_TWO) {
            return size;
        }
        int block = Math.max(MIN_BLOCK, Integer.highestOneBit(size));
        return block < size ? block << 1 : block;
    }

    /** A buffer of exactly size bytes at the start of a block: a kept one, or a new registration. */
    BufferBase take(int size) {
        int block = blockSize(size);
        MemoryRegistration registration = null;
        synchronized (this) {
            ArrayDeque<MemoryRegistration> kept = idle.get(block);
            if (kept != null && !kept.isEmpty()) {
                registration = kept.pop();
                idleBytes -= block;
            }
        }
        if (registration == null) {
            registration = context.registerRaw(AlignedMemory.allocate(block), AccessFlags.LOCAL_WRITE);
        }
        return context.track(new LargeBlock(this, registration, size)); // on failure the block went back
    }

    void giveBack(MemoryRegistration registration) {
        synchronized (this) {
            if (!closed && idleBytes + registration.length <= maxIdleBytes) {
                idle.computeIfAbsent(registration.length, b -> new ArrayDeque<>()).push(registration);
                idleBytes += registration.length;
                return;
            }
        }
        registration.markClosed();
    }

    /** Deregisters every kept block; blocks in use are deregistered when released. */
    void close() {
        List<MemoryRegistration> kept = new ArrayList<>();
        synchronized (this) {
            closed = true;
            idle.values().forEach(kept::addAll);
            idle.clear();
            idleBytes = 0;
        }
        kept.forEach(MemoryRegistration::markClosed);
    }

    /** One use of a block: closing it gives the block back. */
    private static final class LargeBlock extends BufferBase {
        private final LargeBlocks blocks;

        LargeBlock(LargeBlocks blocks, MemoryRegistration registration, int size) {
            super(registration, 0, size);
            this.blocks = blocks;
        }

        @Override
        protected String describe() {
            return "block of " + length + " bytes (large message or buffer) on " + blocks.context.device().name();
        }

        @Override
        protected void freeMemory() {
            blocks.context.childFreed(this);
            blocks.giveBack(registration);
        }
    }
}
