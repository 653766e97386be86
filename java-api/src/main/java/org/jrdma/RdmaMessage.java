package org.jrdma;

import java.nio.ByteBuffer;

/**
 * A received message. Its payload is a read-only view of the receive buffer, valid until the
 * handler returns — or, after {@link #retain()}, until {@link #release()}. While a small (eager)
 * message is held its receive buffer is not re-posted and its credit not returned, which slows the
 * sender down; a large one lies in a registered buffer of its own, which release() gives back.
 */
public interface RdmaMessage {
    /** {@return a read-only view of the payload: position 0, limit {@link #length()}} */
    ByteBuffer payload();

    /** {@return the payload's length in bytes} */
    int length();

    /** {@return the sender's sequence number (increasing per channel)} */
    long id();

    /** Keeps the message valid after the handler returns; call {@link #release()} once done. */
    void retain();

    /** Gives a retained message back; idempotent. */
    void release();

    /**
     * {@return whether retaining this message keeps one of the channel's receive buffers} True for a small (eager)
     * message: until it is released the sender has one buffer fewer to send into, so keep it briefly (or copy it).
     * False for a large one: it lies in a registered buffer of its own, which may be kept as long as needed.
     */
    boolean holdsReceiveBuffer();
}
