package org.jrdma.impl;

import java.nio.ByteBuffer;

/**
 * The message of one receive slot, reused for every message that lands there (no allocation per
 * message). Giving it back re-posts the slot.
 */
final class JniMessage extends ReceivedMessage {
    private final JniChannel channel;
    private final int slot;
    private final ByteBuffer view; // read-only slice of the slot's payload area

    JniMessage(JniChannel channel, int slot, ByteBuffer view) {
        this.channel = channel;
        this.slot = slot;
        this.view = view;
    }

    @Override
    ByteBuffer view() {
        return view;
    }

    @Override
    void giveBack() {
        channel.releaseReceive(slot);
    }

    @Override
    public boolean holdsReceiveBuffer() {
        return true; // the slot is re-posted only on release
    }
}
