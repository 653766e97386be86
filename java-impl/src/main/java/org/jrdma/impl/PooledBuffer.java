package org.jrdma.impl;

/**
 * A block of a pool slab (slabs are registered for local access only); closing returns the block to
 * its size class. With remote access the block has a registration of its own covering exactly its
 * bytes: its rkey reaches nothing else and is deregistered before the block can be handed out again.
 */
final class PooledBuffer extends BufferBase {
    private final BufferPool.Slab slab;

    PooledBuffer(BufferPool.Slab slab, int offset, int blockSize, MemoryRegistration remote) {
        super(slab.registration, remote == null ? slab.registration : remote, offset, blockSize);
        this.slab = slab;
    }

    @Override
    protected String describe() {
        return "pooled buffer of " + length + " bytes on " + slab.pool.context.device().name();
    }

    @Override
    protected void freeMemory() {
        slab.pool.context.childFreed(this);
        try {
            if (remoteRegistration != registration) {
                remoteRegistration.markClosed(); // the token dies before the block is reused
            }
        } finally {
            slab.giveBack(offset);
        }
    }
}
