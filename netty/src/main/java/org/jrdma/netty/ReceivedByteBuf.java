package org.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.jrdma.RdmaMessage;

/**
 * A large received message handed to the pipeline as it lies in jrdma's memory, without a copy: a
 * composite of one read-only component over the message's payload, which keeps the message retained
 * until the last reference to the buffer (or to any slice of it) is released. Only for messages that
 * do not hold a receive buffer ({@link RdmaMessage#holdsReceiveBuffer()}): a decoder may keep such a
 * buffer until a frame is whole without keeping the peer from sending the rest. The received bytes
 * cannot be changed in place (a {@code ReadOnlyBufferException}). The pipeline gets slices of it
 * ({@link #of}), never the composite.
 */
final class ReceivedByteBuf extends CompositeByteBuf {
    private static final int MAX_COMPONENTS = 16; // Netty's default for composites

    private final RdmaMessage message;

    private ReceivedByteBuf(ByteBufAllocator alloc, RdmaMessage message) {
        super(alloc, true, MAX_COMPONENTS, Unpooled.wrappedBuffer(message.payload()));
        this.message = message;
    }

    /**
     * {@return a slice over the whole message, tracked by Netty's leak detector} Retains the message: call
     * from within jrdma's {@code onMessage}. A slice, never the composite: a cumulating decoder
     * (ByteToMessageDecoder) that kept the composite as its cumulation would grow it with later bytes and
     * hold jrdma's buffer until the cumulation empties; a slice it copies or appends, and the message goes
     * back once the slice's bytes are consumed.
     */
    static ByteBuf of(ByteBufAllocator alloc, RdmaMessage message) {
        message.retain();
        ByteBuf whole;
        try {
            whole = RegisteredByteBufAllocator.leakAware(new ReceivedByteBuf(alloc, message));
        } catch (RuntimeException | Error e) {
            message.release();
            throw e;
        }
        ByteBuf slice = whole.retainedSlice();
        whole.release();
        return slice;
    }

    /** {@return the message whose payload this buffer shows} */
    RdmaMessage message() {
        return message;
    }

    @Override
    protected void deallocate() {
        try {
            super.deallocate(); // releases the components: the payload's view and what was added
        } finally {
            message.release(); // its memory goes back to jrdma's pool
        }
    }
}
