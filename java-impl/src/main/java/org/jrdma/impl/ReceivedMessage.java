package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaMessage;

/**
 * The retain/release contract of a delivered message: valid from delivery until the handler
 * returns, or until release() after retain(); then its memory goes back ({@link #giveBack()}),
 * exactly once.
 */
abstract class ReceivedMessage implements RdmaMessage {
    private static final int IDLE = 0;
    private static final int IN_HANDLER = 1;
    private static final int RETAINED = 2;

    private final AtomicInteger state = new AtomicInteger(IDLE);
    private int length;
    private long id;

    /** Read-only view of the payload's memory, position 0; payload() limits it to the length. */
    abstract ByteBuffer view();

    /** The memory is free again (the message was handled or released). */
    abstract void giveBack();

    final void arm(int newLength, long newId) {
        this.length = newLength;
        this.id = newId;
        state.set(IN_HANDLER);
    }

    /** The handler returned: the memory goes back unless the message was retained. */
    final void handlerReturned() {
        if (state.compareAndSet(IN_HANDLER, IDLE)) {
            giveBack();
        }
    }

    @Override
    public final ByteBuffer payload() {
        if (state.get() == IDLE) {
            throw new RdmaClosedException("the message was released; its buffer is reused");
        }
        ByteBuffer payload = view().duplicate();
        payload.limit(length);
        return payload;
    }

    @Override
    public final int length() {
        return length;
    }

    @Override
    public final long id() {
        return id;
    }

    @Override
    public final void retain() {
        if (!state.compareAndSet(IN_HANDLER, RETAINED)) {
            throw new IllegalStateException("retain() only inside onMessage, once");
        }
    }

    @Override
    public final void release() {
        if (state.compareAndSet(RETAINED, IDLE)) {
            giveBack();
        }
    }
}
