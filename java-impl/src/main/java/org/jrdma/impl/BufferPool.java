package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.jrdma.RdmaClosedException;

/**
 * Registered memory in size classes (4 KiB to 1 MiB, powers of two). Each class carves 2 MiB slabs,
 * each registered once for local access only, into equal blocks; a closed buffer's block goes back
 * to its slab and is handed out again, so steady-state allocation of local memory registers nothing.
 * A block with remote access gets a registration of exactly its bytes (see {@link PooledBuffer}): a
 * token never reaches a neighbouring block, nor the block once it is closed.
 *
 * <p>What a burst took goes back: blocks come from a class's oldest slabs first, so the newer ones
 * drain, and a slab that stayed empty for {@link #IDLE_NANOS} is deregistered and its pages given to the
 * system by the event loop's next turn (a thousand channels' messages must not leave their peak behind).
 * The oldest empty slab of each class stays, so a buffer allocated and closed in a loop never registers;
 * the second of idleness keeps a working set that swings across a slab boundary from registering and
 * deregistering on every swing. Slabs are native pages ({@link NativeContext#allocatePages0}), not
 * zero-filled when they come and never unmapped when they go (the addresses are reused by the next
 * slab): a view a careless program kept reads zeros or a later block, never unmapped memory.
 */
final class BufferPool {
    static final int MIN_CLASS = 4096;
    static final int MAX_CLASS = 1 << 20;
    static final int SLAB_BYTES = 2 << 20;
    static final long IDLE_NANOS = 1_000_000_000L;
    private static final long SWEEP_NANOS = 250_000_000L;

    final JniContext context;
    private final SizeClass[] classes;
    private boolean closed; // guarded by this
    private long nextSweep = System.nanoTime(); // the event loop's (its thread, or the caller driving it)

    BufferPool(JniContext context) {
        this.context = context;
        int count = Integer.numberOfTrailingZeros(MAX_CLASS) - Integer.numberOfTrailingZeros(MIN_CLASS) + 1;
        this.classes = new SizeClass[count];
        for (int i = 0; i < count; i++) {
            classes[i] = new SizeClass(MIN_CLASS << i);
        }
    }

    /** The block size serving a request, or -1 when it is above the largest class. */
    static int blockSize(int size) {
        if (size > MAX_CLASS) {
            return -1;
        }
        int block = Math.max(MIN_CLASS, Integer.highestOneBit(size));
        return block < size ? block << 1 : block;
    }

    /** A block for size bytes; remoteAccess (a verbs access mask) other than local-only registers it for peers. */
    PooledBuffer allocate(int size, int remoteAccess) {
        int block = blockSize(size);
        SizeClass sizeClass = classes[Integer.numberOfTrailingZeros(block) - Integer.numberOfTrailingZeros(MIN_CLASS)];
        return sizeClass.take(remoteAccess);
    }

    /** Bytes of the slabs registered now, blocks in use and free ones (JMX: PoolBytes). */
    long registeredBytes() {
        long bytes = 0;
        for (SizeClass c : classes) {
            synchronized (c) {
                bytes += (long) c.slabs.size() * SLAB_BYTES;
            }
        }
        return bytes;
    }

    /**
     * Retires the slabs that stayed empty for {@link #IDLE_NANOS}, but the oldest empty one of each
     * class; called on every turn of the event loop, looks at the slabs a few times a second.
     */
    void retireIdleSlabs(long now) {
        if (now - nextSweep < 0) {
            return;
        }
        nextSweep = now + SWEEP_NANOS;
        for (SizeClass c : classes) {
            c.retireIdle(now);
        }
    }

    /** Closes the slabs; each is deregistered once its last block is back. */
    void close() {
        List<Slab> slabs = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (SizeClass c : classes) {
                synchronized (c) {
                    slabs.addAll(c.slabs);
                    c.slabs.clear();
                    c.withFreeBlocks.clear();
                }
            }
        }
        slabs.forEach(s -> s.registration.markClosed());
    }

    private final class SizeClass {
        final int blockSize;
        // Guarded by this. Slabs with a free block, oldest first (serial order).
        final List<Slab> slabs = new ArrayList<>();
        final TreeSet<Slab> withFreeBlocks = new TreeSet<>((a, b) -> Long.compare(a.serial, b.serial));
        long nextSerial;
        int emptySlabs;

        SizeClass(int blockSize) {
            this.blockSize = blockSize;
        }

        PooledBuffer take(int remoteAccess) {
            Slab slab;
            int offset;
            synchronized (this) {
                if (withFreeBlocks.isEmpty()) {
                    grow();
                }
                slab = withFreeBlocks.first();
                if (slab.isEmpty()) {
                    emptySlabs--;
                }
                offset = slab.takeBlock();
                if (!slab.hasFreeBlock()) {
                    withFreeBlocks.remove(slab);
                }
                slab.registration.acquire(); // the slab stays registered while the block is out
            }
            MemoryRegistration remote = null;
            if (AccessFlags.remote(remoteAccess)) {
                try {
                    remote = context.registerRange(slab.registration, offset, blockSize, remoteAccess);
                } catch (RuntimeException e) {
                    slab.giveBack(offset);
                    throw e;
                }
            }
            // From here the buffer owns the block: if tracking fails, closing it gives the block back once.
            return context.track(new PooledBuffer(slab, offset, blockSize, remote));
        }

        private void grow() {
            synchronized (BufferPool.this) {
                if (closed) {
                    throw new RdmaClosedException("the buffer pool of " + context.device().name() + " is closed");
                }
            }
            ByteBuffer pages = NativeContext.allocatePages0(SLAB_BYTES);
            MemoryRegistration registration;
            try {
                registration = context.register(pages, NativeContext.address0(pages), SLAB_BYTES, AccessFlags.LOCAL_WRITE, true);
            } catch (RuntimeException e) {
                NativeContext.freePages0(NativeContext.address0(pages), SLAB_BYTES);
                throw e;
            }
            Slab slab = new Slab(BufferPool.this, this, nextSerial++, blockSize, registration);
            slabs.add(slab);
            withFreeBlocks.add(slab);
            emptySlabs++;
        }

        /** Takes the block back; an emptied slab is retired by {@link #retireIdle} once it stayed empty. */
        synchronized void giveBack(Slab slab, int offset) {
            if (slab.registration.isClosedFlag()) {
                return;
            }
            if (!slab.hasFreeBlock()) {
                withFreeBlocks.add(slab);
            }
            slab.putBlock(offset);
            if (slab.isEmpty()) {
                slab.emptySince = System.nanoTime();
                emptySlabs++;
            }
        }

        void retireIdle(long now) {
            List<Slab> idle = null;
            synchronized (this) {
                if (emptySlabs < 2) {
                    return;
                }
                Slab kept = null;
                for (Slab slab : withFreeBlocks) { // oldest first: the first empty one stays
                    if (!slab.isEmpty()) {
                        continue;
                    }
                    if (kept == null) {
                        kept = slab;
                    } else if (now - slab.emptySince >= IDLE_NANOS) {
                        (idle == null ? idle = new ArrayList<>() : idle).add(slab);
                    }
                }
                if (idle == null) {
                    return;
                }
                for (Slab slab : idle) {
                    withFreeBlocks.remove(slab); // no block is taken from it any more
                    emptySlabs--;
                }
            }
            idle.forEach(Slab::retire); // deregisters, gives the pages back (outside the lock: slow on some devices)
            synchronized (this) {
                // Counted (PoolBytes) until its pages are back: a reader that sees the pool shrink finds them gone.
                slabs.removeAll(idle);
            }
        }
    }

    /** One registered slab of a size class and its free blocks (guarded by the class). */
    static final class Slab {
        final BufferPool pool;
        private final SizeClass sizeClass;
        private final long serial;
        final MemoryRegistration registration;
        private final int[] freeOffsets;
        private int free;
        private long emptySince; // System.nanoTime() when its last block came back

        Slab(BufferPool pool, SizeClass sizeClass, long serial, int blockSize, MemoryRegistration registration) {
            this.pool = pool;
            this.sizeClass = sizeClass;
            this.serial = serial;
            this.registration = registration;
            this.freeOffsets = new int[registration.length / blockSize];
            for (int i = 0; i < freeOffsets.length; i++) {
                freeOffsets[i] = (freeOffsets.length - 1 - i) * blockSize; // the first block on top
            }
            this.free = freeOffsets.length;
        }

        boolean hasFreeBlock() {
            return free > 0;
        }

        boolean isEmpty() {
            return free == freeOffsets.length;
        }

        int takeBlock() {
            return freeOffsets[--free];
        }

        void putBlock(int offset) {
            freeOffsets[free++] = offset;
        }

        /** Closing the buffer of a block: the use it held ends before the block is free again. */
        void giveBack(int offset) {
            registration.release();
            sizeClass.giveBack(this, offset);
        }

        /** Deregisters the slab (no block is out), which gives its pages back. */
        private void retire() {
            registration.markClosed();
        }
    }
}
