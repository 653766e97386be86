package org.jrdma.netty;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaException;
import org.jrdma.RegisteredBuffer;

/**
 * The default allocator of the channels of one context (one event loop): a direct buffer of
 * {@link #MIN_REGISTERED} to {@link #MAX_REGISTERED} bytes is made in the context's pool of registered
 * memory, so that writing it sends its bytes as they are — the peer reads them straight from it — where
 * any other buffer is first copied into registered memory. Smaller buffers come from Netty's default
 * allocator: they are coalesced into one message per flush, a copy that costs less than a registered
 * block of at least 4 KiB each. Larger ones do too: the pool's largest block is 1 MiB, and registering
 * memory for each buffer costs more than copying it. Should registering fail (the memlock limit), the
 * buffer comes from Netty's default allocator as well.
 */
final class RegisteredByteBufAllocator extends AbstractByteBufAllocator {
    /** Below this a write is coalesced with others (copied) anyway. */
    static final int MIN_REGISTERED = 16 << 10;
    /** The largest block of the context's pool. */
    static final int MAX_REGISTERED = 1 << 20;

    private final RdmaContext context;
    private final ByteBufAllocator plain = ByteBufAllocator.DEFAULT;

    RegisteredByteBufAllocator(RdmaContext context) {
        super(true);
        this.context = context;
    }

    /** {@return the context whose memory this allocator hands out} */
    RdmaContext context() {
        return context;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        RegisteredBuffer memory = initialCapacity >= MIN_REGISTERED ? registeredOrNull(initialCapacity) : null;
        if (memory == null) {
            return plain.directBuffer(initialCapacity, maxCapacity);
        }
        return toLeakAwareBuffer(new RegisteredByteBuf(this, memory, initialCapacity, maxCapacity));
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return plain.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    /** {@return {@code buf} tracked by Netty's leak detector as this allocator's buffers are} */
    static ByteBuf leakAware(CompositeByteBuf buf) {
        return toLeakAwareBuffer(buf);
    }

    /** A registered block of {@code capacity} bytes, or null when it is not one of the pool's sizes or registering failed. */
    RegisteredBuffer registeredOrNull(int capacity) {
        if (capacity > MAX_REGISTERED) {
            return null;
        }
        try {
            return context.allocate(capacity);
        } catch (RdmaException e) {
            return null; // the memlock limit or a closing context: plain memory serves as well, with a copy when sent
        }
    }
}
