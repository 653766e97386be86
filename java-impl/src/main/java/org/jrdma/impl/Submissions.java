package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A channel's submissions waiting for its next {@link NativeChannel#submit0} call: 64-byte records in
 * native byte order in a direct buffer, laid out as {@code Submission} in native/src/protocol/submission.h
 * (checked at load, {@link Layouts}). They carry only what to do — operations, posted receives, receive
 * releases and destinations of rendezvous transfers; the
 * native engine decides slots, credits, message ids, signaling and posting order. Not thread-safe: the
 * channel's lock guards it.
 */
final class Submissions {
    static final int RECORD_BYTES = 64;
    static final int KIND_OFFSET = 0;
    static final int RECEIVE_SLOT_OFFSET = 4;
    /** The same field as the receive slot: an operation's deadline in milliseconds (0: none). */
    static final int DEADLINE_OFFSET = 4;
    static final int LOCAL_ADDRESS_OFFSET = 8;
    static final int LENGTH_OFFSET = 16;
    static final int LKEY_OFFSET = 20;
    static final int REMOTE_ADDRESS_OFFSET = 24;
    static final int RKEY_OFFSET = 32;
    static final int IMMEDIATE_OFFSET = 36;
    static final int SEQ_OFFSET = 40;
    static final int COMPARE_ADD_OFFSET = 48;
    static final int SWAP_OFFSET = 56;
    /** OpKind::kReleaseReceive. */
    static final byte RELEASE_RECEIVE = 8;
    /** OpKind::kTransferBuffer. */
    static final byte TRANSFER_BUFFER = 10;
    /** OpKind::kAgentAnswer. */
    static final byte AGENT_ANSWER = 16;

    private final ByteBuffer records;
    private final long address;
    private final int capacity;
    private int count;

    Submissions(int capacity) {
        this.capacity = capacity;
        this.records = ByteBuffer.allocateDirect(capacity * RECORD_BYTES).order(ByteOrder.nativeOrder());
        this.address = NativeContext.address0(records);
    }

    static String layout() {
        return "submission size=" + RECORD_BYTES + ",kind=" + KIND_OFFSET + ",receive_slot=" + RECEIVE_SLOT_OFFSET
                + ",deadline_ms=" + DEADLINE_OFFSET
                + ",local_address=" + LOCAL_ADDRESS_OFFSET + ",length=" + LENGTH_OFFSET + ",lkey=" + LKEY_OFFSET
                + ",remote_address=" + REMOTE_ADDRESS_OFFSET + ",rkey=" + RKEY_OFFSET + ",immediate=" + IMMEDIATE_OFFSET
                + ",seq=" + SEQ_OFFSET + ",compare_add=" + COMPARE_ADD_OFFSET + ",swap=" + SWAP_OFFSET;
    }

    long address() {
        return address;
    }

    int count() {
        return count;
    }

    boolean isFull() {
        return count == capacity;
    }

    void clear() {
        count = 0;
    }

    /** Appends an operation (the caller made room: {@link #isFull()} is false). */
    void addOperation(ChannelOp op, long localAddress, int lkey) {
        int at = count++ * RECORD_BYTES;
        records.put(at + KIND_OFFSET, op.kind.opKind);
        records.putInt(at + DEADLINE_OFFSET, op.deadlineMillis);
        records.putLong(at + LOCAL_ADDRESS_OFFSET, localAddress);
        records.putInt(at + LENGTH_OFFSET, op.length);
        records.putInt(at + LKEY_OFFSET, lkey);
        records.putLong(at + REMOTE_ADDRESS_OFFSET, op.remoteAddress);
        records.putInt(at + RKEY_OFFSET, op.rkey);
        records.putInt(at + IMMEDIATE_OFFSET, op.immediate);
        records.putLong(at + SEQ_OFFSET, op.seq);
        records.putLong(at + COMPARE_ADD_OFFSET, op.compareOrAdd);
        records.putLong(at + SWAP_OFFSET, op.swap);
    }

    /** Appends the release of a receive slot (the application is done with its message). */
    void addRelease(int slot) {
        int at = count++ * RECORD_BYTES;
        records.put(at + KIND_OFFSET, RELEASE_RECEIVE);
        records.putInt(at + RECEIVE_SLOT_OFFSET, slot);
    }

    /**
     * Appends the destination of rendezvous transfer {@code id} (the whole buffer), or its refusal
     * (buffer null: length 0) with the errno of the failed allocation.
     */
    void addTransferBuffer(long id, BufferBase buffer, int errno) {
        int at = count++ * RECORD_BYTES;
        records.put(at + KIND_OFFSET, TRANSFER_BUFFER);
        records.putLong(at + LOCAL_ADDRESS_OFFSET, buffer == null ? 0 : buffer.registration.address + buffer.offset);
        records.putInt(at + LENGTH_OFFSET, buffer == null ? 0 : buffer.length);
        records.putInt(at + LKEY_OFFSET, buffer == null ? 0 : buffer.registration.lkey);
        records.putLong(at + COMPARE_ADD_OFFSET, id);
        records.putLong(at + SWAP_OFFSET, errno);
    }

    /**
     * Appends the answer to the peer's allocation request {@code id}: granted (status 0) at
     * address/rkey, or refused (status 3, wire::AgentStatus::kFailed) with the errno.
     */
    void addAgentAnswer(long id, int status, long address, int rkey, int errno) {
        int at = count++ * RECORD_BYTES;
        records.put(at + KIND_OFFSET, AGENT_ANSWER);
        records.putInt(at + IMMEDIATE_OFFSET, status);
        records.putLong(at + REMOTE_ADDRESS_OFFSET, address);
        records.putInt(at + RKEY_OFFSET, rkey);
        records.putLong(at + COMPARE_ADD_OFFSET, id);
        records.putLong(at + SWAP_OFFSET, errno);
    }

    /** For tests: one byte of the records. */
    byte byteAt(int index) {
        return records.get(index);
    }
}
