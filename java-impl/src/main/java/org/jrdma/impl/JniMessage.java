package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaMessage;

/**
 * The message of one receive slot, reused for every message that lands there (no allocation per
 * message). Valid from delivery until the handler returns, or until release() after retain().
 */
final class JniMessage implements RdmaMessage {
    private static final int IDLE = 0;
    private static final int IN_HANDLER = 1;
    private static final int RETAINED = 2;

    private final JniChannel channel;
    private final int slot;
    private final ByteBuffer view; // read-only slice of the slot's payload area
    private final AtomicInteger state = new AtomicInteger(IDLE);
    private int length;
    private long id;

    JniMessage(JniChannel channel, int slot, ByteBuffer view) {
        this.channel = channel;
        this.slot = slot;
        this.view = view;
    }

    void arm(int newLength, long newId) {
        this.length = newLength;
        this.id = newId;
        state.set(IN_HANDLER);
    }

    /** The handler returned: the slot goes back unless the message was retained. */
    void handlerReturned() {
        if (state.compareAndSet(IN_HANDLER, IDLE)) {
            channel.releaseReceive(slot);
        }
    }

    @Override
    public ByteBuffer payload() {
        if (state.get() == IDLE) {
            throw new RdmaClosedException("the message was released; its buffer is reused");
        }
        ByteBuffer payload = view.duplicate();
        payload.limit(length);
        return payload;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public void retain() {
        if (!state.compareAndSet(IN_HANDLER, RETAINED)) {
            throw new IllegalStateException("retain() only inside onMessage, once");
        }
    }

    @Override
    public void release() {
        if (state.compareAndSet(RETAINED, IDLE)) {
            channel.releaseReceive(slot);
        }
    }
}
