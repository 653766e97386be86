package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.RdmaClosedException;

/**
 * Registered memory in size classes (4 KiB to 1 MiB, powers of two). Each class carves 2 MiB slabs,
 * each registered once for local access only, into equal blocks; a closed buffer's block goes back
 * to its class and is handed out again, so steady-state allocation of local memory registers nothing.
 * A block with remote access gets a registration of exactly its bytes (see {@link PooledBuffer}): a
 * token never reaches a neighbouring block, nor the block once it is closed.
 */
final class BufferPool {
    static final int MIN_CLASS = 4096;
    static final int MAX_CLASS = 1 << 20;
    static final int SLAB_BYTES = 2 << 20;

    final JniContext context;
    private final SizeClass[] classes;
    private boolean closed;

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

    /** Closes the slabs; each is deregistered once its last block is back. */
    void close() {
        List<Slab> slabs = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (SizeClass c : classes) {
                synchronized (c) {
                    slabs.addAll(c.slabs);
                    c.free.clear();
                }
            }
        }
        slabs.forEach(s -> s.registration.markClosed());
    }

    private final class SizeClass {
        final int blockSize;
        final ArrayDeque<long[]> free = new ArrayDeque<>(); // {slab index, offset}
        final List<Slab> slabs = new ArrayList<>();

        SizeClass(int blockSize) {
            this.blockSize = blockSize;
        }

        PooledBuffer take(int remoteAccess) {
            long[] block;
            Slab slab;
            synchronized (this) {
                if (free.isEmpty()) {
                    grow();
                }
                block = free.pop();
                slab = slabs.get((int) block[0]);
                slab.registration.acquire(); // the slab stays registered while the block is out
            }
            MemoryRegistration remote = null;
            if (AccessFlags.remote(remoteAccess)) {
                try {
                    remote = context.registerRange(slab.registration, (int) block[1], blockSize, remoteAccess);
                } catch (RuntimeException e) {
                    slab.giveBack((int) block[1]);
                    throw e;
                }
            }
            // From here the buffer owns the block: if tracking fails, closing it gives the block back once.
            return context.track(new PooledBuffer(slab, (int) block[1], blockSize, remote));
        }

        private void grow() {
            synchronized (BufferPool.this) {
                if (closed) {
                    throw new RdmaClosedException("the buffer pool of " + context.device().name() + " is closed");
                }
            }
            int bytes = Math.max(SLAB_BYTES, blockSize);
            Slab slab = new Slab(BufferPool.this, this, context.registerRaw(AlignedMemory.allocate(bytes), AccessFlags.LOCAL_WRITE));
            int index = slabs.size();
            slabs.add(slab);
            for (int offset = 0; offset + blockSize <= bytes; offset += blockSize) {
                free.add(new long[] {index, offset});
            }
        }

        synchronized void giveBack(Slab slab, int offset) {
            if (!slab.registration.isClosedFlag()) {
                free.push(new long[] {slabs.indexOf(slab), offset});
            }
        }
    }

    /** One registered slab of a size class. */
    static final class Slab {
        final BufferPool pool;
        private final SizeClass sizeClass;
        final MemoryRegistration registration;

        Slab(BufferPool pool, SizeClass sizeClass, MemoryRegistration registration) {
            this.pool = pool;
            this.sizeClass = sizeClass;
            this.registration = registration;
        }

        void giveBack(int offset) {
            sizeClass.giveBack(this, offset);
            registration.release();
        }
    }
}
