package org.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.CleanableDirectBuffer;
import java.nio.ByteBuffer;
import org.jrdma.RegisteredBuffer;

/**
 * A Netty buffer whose bytes lie in a block of registered memory ({@link RegisteredByteBufAllocator}),
 * so that a channel of the same context sends them as they are, without a copy. Growing it moves the
 * bytes into another registered block while one of the pool's sizes fits, beyond that into plain
 * memory (it is then copied when sent, as any other buffer). Releasing it gives its block back.
 */
final class RegisteredByteBuf extends UnpooledUnsafeDirectByteBuf {
    private final RegisteredByteBufAllocator allocator;
    /** The block the bytes lie in now; null once they moved to plain memory or the buffer was released. */
    private RegisteredBuffer memory;
    /**
     * The block the buffer was made with: Netty never frees a buffer it was given (only those it
     * allocated when growing), so this class gives it back once the bytes moved out or on release.
     */
    private RegisteredBuffer first;

    RegisteredByteBuf(RegisteredByteBufAllocator allocator, RegisteredBuffer memory, int initialCapacity, int maxCapacity) {
        super(allocator, memory.buffer().limit(initialCapacity), maxCapacity);
        this.allocator = allocator;
        this.memory = memory;
        this.first = memory;
        setIndex(0, 0); // made over a buffer, Netty counts its bytes as written
    }

    /**
     * The registered block and offset where {@code buf}'s readable bytes lie, when they lie in a
     * registered buffer of {@code allocator} (the buffer itself, or a slice or duplicate of one).
     *
     * @return the region, or null: the bytes are elsewhere and are copied to be sent
     */
    static Region regionOf(ByteBuf buf, RegisteredByteBufAllocator allocator) {
        ByteBuf root = buf;
        while (root.unwrap() != null) {
            root = root.unwrap();
        }
        if (!(root instanceof RegisteredByteBuf registered) || registered.allocator != allocator
                || registered.memory == null || !buf.hasMemoryAddress()) {
            return null;
        }
        long offset = buf.memoryAddress() + buf.readerIndex() - registered.memoryAddress();
        return new Region(registered.memory, (int) offset);
    }

    /** Where a buffer's readable bytes lie in registered memory. */
    record Region(RegisteredBuffer memory, int offset) { }

    @Override
    protected CleanableDirectBuffer allocateDirectBuffer(int capacity) {
        RegisteredBuffer grown = allocator.registeredOrNull(capacity);
        memory = grown;
        return grown == null ? super.allocateDirectBuffer(capacity) : new Block(grown, capacity);
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        int oldCapacity = capacity();
        super.capacity(newCapacity);
        if (newCapacity != oldCapacity) {
            giveBackFirst(); // the bytes were copied out of it
        }
        return this;
    }

    @Override
    protected void deallocate() {
        super.deallocate(); // gives back a block the buffer grew into
        memory = null;
        giveBackFirst();
    }

    private void giveBackFirst() {
        if (first != null) {
            first.close();
            first = null;
        }
    }

    /** A block the buffer grew into: Netty cleans it once the bytes move on or the buffer is released. */
    private record Block(RegisteredBuffer memory, ByteBuffer buffer) implements CleanableDirectBuffer {
        Block(RegisteredBuffer memory, int capacity) {
            this(memory, memory.buffer().limit(capacity));
        }

        @Override
        public void clean() {
            memory.close();
        }
    }
}
