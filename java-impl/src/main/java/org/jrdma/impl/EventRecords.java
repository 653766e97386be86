package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The batch of 32-byte event records the native loop writes (native/src/protocol/event_record.h,
 * which says what each field means per kind). Read in place with absolute gets: no allocation per
 * event. The layout is checked against the native library's at load ({@link Layouts}).
 */
final class EventRecords {
    static final int RECORD_BYTES = 32;
    static final int KIND_OFFSET = 0;
    static final int KEY_OFFSET = 4;
    static final int A_OFFSET = 8;
    static final int B_OFFSET = 12;
    static final int C_OFFSET = 16;
    static final int D_OFFSET = 24;

    static final int KIND_OP_DONE = 1;
    static final int KIND_OPS_UNPOSTED = 2;
    static final int KIND_MESSAGE = 3;
    static final int KIND_IMMEDIATE = 4;
    static final int KIND_CHANNEL_OPEN = 5;
    static final int KIND_CHANNEL_CLOSED = 6;
    static final int KIND_INCOMING = 7;
    static final int KIND_INCOMING_REJECTED = 8;
    static final int KIND_ASYNC_EVENT = 9;
    static final int KIND_WAKEUP = 10;
    static final int KIND_TRANSFER_NEEDS_BUFFER = 11;
    static final int KIND_LARGE_MESSAGE = 12;
    static final int KIND_RECEIVE_DONE = 13;
    static final int KIND_AGENT_REQUEST = 14;
    static final int KIND_AGENT_REPLY = 15;
    static final int KIND_AGENT_RELEASE = 16;
    static final int KIND_TOKEN = 17;
    static final int KIND_ADMISSION_REQUEST = 18;
    static final int KIND_DEVICE_REMOVED = 19;

    /** wire::AgentStatus of kAgentReply (and kAgentAnswer). */
    static final int AGENT_GRANTED = 0;
    static final int AGENT_OVER_COUNT = 1;
    static final int AGENT_OVER_BYTES = 2;
    static final int AGENT_FAILED = 3;
    static final int AGENT_TIMED_OUT = 100;

    /** ReceiveStatus of kReceiveDone. */
    static final int RECEIVED = 0;
    static final int RECEIVE_TOO_SMALL = 1;

    /** OpStatus of kOpDone beyond ibv_wc_status: how a rendezvous send ended. */
    static final int PEER_BUFFER_TOO_SMALL = 1001;
    static final int PEER_COULD_NOT_RECEIVE = 1002;
    static final int EXPOSE_FAILED = 1003;

    /** ClosedCause of kChannelClosed. */
    static final int CLOSED_LOCAL = 1;
    static final int CLOSED_PEER_DISCONNECTED = 2;
    static final int CLOSED_OPERATION_FAILED = 3;
    static final int CLOSED_PROTOCOL_ERROR = 4;
    static final int CLOSED_CONNECT_FAILED = 5;
    static final int CLOSED_GRACEFUL_TIMEOUT = 6;
    static final int CLOSED_PEER_SILENT = 7;
    static final int CLOSED_OPERATION_TIMEOUT = 8;
    static final int CLOSED_DEVICE_REMOVED = 9;

    private final ByteBuffer records;
    private final long address;
    private final int capacity;

    EventRecords(int capacity) {
        this.capacity = capacity;
        this.records = ByteBuffer.allocateDirect(capacity * RECORD_BYTES).order(ByteOrder.nativeOrder());
        this.address = NativeContext.address0(records);
    }

    static String layout() {
        return "record size=" + RECORD_BYTES + ",key=" + KEY_OFFSET + ",a=" + A_OFFSET + ",b=" + B_OFFSET + ",c=" + C_OFFSET
                + ",d=" + D_OFFSET;
    }

    long address() {
        return address;
    }

    int capacity() {
        return capacity;
    }

    int kind(int i) {
        return records.getInt(i * RECORD_BYTES + KIND_OFFSET);
    }

    /** The channel the record is about. */
    int key(int i) {
        return records.getInt(i * RECORD_BYTES + KEY_OFFSET);
    }

    // kOpDone
    int opStatus(int i) {
        return a(i);
    }

    long opSeq(int i) {
        return c(i);
    }

    long opResult(int i) {
        return d(i);
    }

    // kOpsUnposted
    long firstUnpostedSeq(int i) {
        return c(i);
    }

    // kMessage, kImmediate, kLargeMessage (length and id)
    int receiveSlot(int i) {
        return a(i);
    }

    int messageLength(int i) {
        return b(i);
    }

    long messageId(int i) {
        return c(i);
    }

    int immediate(int i) {
        return b(i);
    }

    // kTransferNeedsBuffer
    long transferId(int i) {
        return c(i);
    }

    long transferLength(int i) {
        return d(i);
    }

    // kReceiveDone
    int receiveStatus(int i) {
        return a(i);
    }

    int receivedLength(int i) {
        return b(i);
    }

    long receiveSeq(int i) {
        return c(i);
    }

    /** The message id (received), or the message's length (too small). */
    long receiveDetail(int i) {
        return d(i);
    }

    // kChannelOpen
    int peerCredits(int i) {
        return a(i);
    }

    int peerMaxMessage(int i) {
        return b(i);
    }

    // kChannelClosed: cause, code and details (event_record.h, ClosedCause)
    int closedCause(int i) {
        return a(i);
    }

    int closedCode(int i) {
        return b(i);
    }

    long closedDetail(int i) {
        return c(i);
    }

    long closedDetail2(int i) {
        return d(i);
    }

    // kIncoming, kIncomingRejected
    long incomingChannelHandle(int i) {
        return c(i);
    }

    long listenerHandle(int i) {
        return d(i);
    }

    int rejectReason(int i) {
        return a(i);
    }

    int rejectedPeerValue(int i) {
        return b(i);
    }

    // kAsyncEvent
    int asyncType(int i) {
        return a(i);
    }

    int asyncPort(int i) {
        return b(i);
    }

    int asyncSeverity(int i) {
        return (int) c(i);
    }

    // The raw fields, for kinds whose meaning event_record.h spells out per field (the agent's:
    // RemoteMemoryAgent reads them where it handles each kind).
    int a(int i) {
        return records.getInt(i * RECORD_BYTES + A_OFFSET);
    }

    int b(int i) {
        return records.getInt(i * RECORD_BYTES + B_OFFSET);
    }

    long c(int i) {
        return records.getLong(i * RECORD_BYTES + C_OFFSET);
    }

    long d(int i) {
        return records.getLong(i * RECORD_BYTES + D_OFFSET);
    }
}
