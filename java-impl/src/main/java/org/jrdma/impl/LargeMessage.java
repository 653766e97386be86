package org.jrdma.impl;

import java.nio.ByteBuffer;

/**
 * A message that came by rendezvous, read by the device into a registered buffer of the context's
 * pool allocated for it; giving it back closes that buffer (its block returns to the pool).
 */
final class LargeMessage extends ReceivedMessage {
    private final BufferBase buffer;
    private final ByteBuffer view;

    LargeMessage(BufferBase buffer, int length, long id) {
        this.buffer = buffer;
        this.view = buffer.buffer().asReadOnlyBuffer();
        arm(length, id);
    }

    @Override
    ByteBuffer view() {
        return view;
    }

    @Override
    void giveBack() {
        buffer.close();
    }

    @Override
    public boolean holdsReceiveBuffer() {
        return false; // a buffer of its own, read by rendezvous
    }
}
