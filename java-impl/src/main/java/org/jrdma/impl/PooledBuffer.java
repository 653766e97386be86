package org.jrdma.impl;

/** A block of a pool slab; closing returns the block to its size class. */
final class PooledBuffer extends BufferBase {
    private final BufferPool.Slab slab;

    PooledBuffer(BufferPool.Slab slab, int offset, int blockSize) {
        super(slab.registration, offset, blockSize);
        this.slab = slab;
    }

    @Override
    protected String describe() {
        return "pooled buffer of " + length + " bytes on " + slab.pool.context.device().name();
    }

    @Override
    protected void free() {
        slab.pool.context.childFreed(this);
        slab.giveBack(offset);
    }
}
