package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The work requests a channel has queued for its next {@link NativeChannel#postBatch0} call: 64-byte
 * records in native byte order in a direct buffer, laid out as {@code WorkRequestDescriptor} in
 * native/src/core/work_request.h. Posting a batch costs one JNI call and one doorbell.
 *
 * <p>Selective signaling: only every {@code signalInterval}-th request and the last of each batch ask
 * for a completion. RC completes a send queue in order, so a completion also means every earlier
 * request is done; signaling the last one guarantees that no request waits for a completion that
 * never comes. Not thread-safe: the channel's lock guards it.
 */
final class PostBuffer {
    static final int RECORD_BYTES = 64;
    static final byte SIGNALED = 1;

    private final ByteBuffer records;
    private final long address;
    private final int capacity;
    private final int signalInterval;
    private int count;
    private int unsignaled; // requests since the last signaled one, across batches

    PostBuffer(int capacity, int signalInterval) {
        this.capacity = capacity;
        this.signalInterval = Math.max(1, signalInterval);
        this.records = ByteBuffer.allocateDirect(capacity * RECORD_BYTES).order(ByteOrder.nativeOrder());
        this.address = NativeContext.address0(records);
    }

    long address() {
        return address;
    }

    int count() {
        return count;
    }

    /** Appends one request; the caller holds a free slot for it, so there is always room. */
    void add(ChannelOp.Kind kind, int slot, int credits, long localAddress, int length, int lkey, long remoteAddress,
             int rkey, int immediate, long messageId, long compareAdd, long swap) {
        if (count == capacity) {
            throw new IllegalStateException("more work requests than the queue depth " + capacity);
        }
        int at = count++ * RECORD_BYTES;
        records.put(at, kind.descriptorKind);
        records.put(at + 1, (byte) 0);
        records.putShort(at + 2, (short) credits);
        records.putInt(at + 4, slot);
        records.putLong(at + 8, localAddress);
        records.putInt(at + 16, length);
        records.putInt(at + 20, lkey);
        records.putLong(at + 24, remoteAddress);
        records.putInt(at + 32, rkey);
        records.putInt(at + 36, immediate);
        records.putLong(at + 40, messageId);
        records.putLong(at + 48, compareAdd);
        records.putLong(at + 56, swap);
    }

    /** Decides which of the queued requests ask for a completion (see the class comment). */
    void markSignals() {
        for (int i = 0; i < count; i++) {
            if (++unsignaled >= signalInterval || i == count - 1) {
                records.put(i * RECORD_BYTES + 1, SIGNALED);
                unsignaled = 0;
            }
        }
    }

    boolean signaled(int index) {
        return records.get(index * RECORD_BYTES + 1) == SIGNALED;
    }

    /** For tests: one byte of the records. */
    byte byteAt(int index) {
        return records.get(index);
    }

    void clear() {
        count = 0;
    }
}
