package org.jrdma.impl;

import org.jrdma.AsyncEvent;

/**
 * The codes records carry that Java names here rather than beside the record's fields — why a
 * connection attempt failed, why authentication failed, refusal reasons, the engine's internal
 * operations — and the list of every code that crosses JNI, as the layout line spells it
 * (native/src/protocol/code_layout.h, checked at load by {@link Layouts}).
 */
final class NativeCodes {
    // ChannelFailure (native/src/protocol/event_record.h): a kConnectFailed close's b.
    static final int FAILURE_ADDRESS = 1;
    static final int FAILURE_ROUTE = 2;
    static final int FAILURE_REFUSED = 3;
    static final int FAILURE_REJECTED = 4;
    static final int FAILURE_UNREACHABLE = 5;
    static final int FAILURE_CONNECT = 6;
    static final int FAILURE_SETUP = 7;
    static final int FAILURE_DEVICE_REMOVED = 8;
    static final int FAILURE_WRONG_PORT = 9;
    static final int FAILURE_ATTRIBUTE_REFUSED = 10;
    static final int FAILURE_AUTH = 11;

    // AuthFailure: a FAILURE_AUTH's status.
    static final int AUTH_WRONG_PROOF = 1;
    static final int AUTH_PEER_HUNG_UP = 2;
    static final int AUTH_TIMED_OUT = 3;
    static final int AUTH_NOT_OFFERED = 4;

    // RejectReason (native/src/wire/handshake.h) with a detail Java explains; the texts of all of
    // them are ConnectionFailures' (indexed by the code, up to REJECT_LAST).
    static final int REJECT_VERSION_MISMATCH = 2;
    static final int REJECT_EAGER_MISMATCH = 3;
    static final int REJECT_ATTRIBUTE_REFUSED = 9;
    static final int REJECT_TOO_MANY_PENDING = 10;
    static final int REJECT_AUTH_MISMATCH = 12;
    static final int REJECT_LAST = 13;

    /** The last DecodeStatus (native/src/wire/message_header.h); ConnectionFailures has a text for each. */
    static final int DECODE_LAST = 8;
    // ProtocolViolation: codes of a kProtocolError close beyond the decode statuses.
    static final int VIOLATION_FIRST = 100;
    static final int VIOLATION_TRANSFER_TOO_LONG = 103;
    static final int VIOLATION_LAST = 111;

    // OpKinds the engine uses for itself (never submitted by Java), named in failure reports.
    static final int OP_CREDIT = 2;
    static final int OP_CONTROL = 11;
    static final int OP_TRANSFER_READ = 12;

    private NativeCodes() {
    }

    private static String code(String name, long value) {
        return " " + name + "=" + value;
    }

    static String layout() {
        return "codes EventKind" + code("kOpDone", EventRecords.KIND_OP_DONE)
                + code("kOpsUnposted", EventRecords.KIND_OPS_UNPOSTED) + code("kMessage", EventRecords.KIND_MESSAGE)
                + code("kImmediate", EventRecords.KIND_IMMEDIATE) + code("kChannelOpen", EventRecords.KIND_CHANNEL_OPEN)
                + code("kChannelClosed", EventRecords.KIND_CHANNEL_CLOSED) + code("kIncoming", EventRecords.KIND_INCOMING)
                + code("kIncomingRejected", EventRecords.KIND_INCOMING_REJECTED)
                + code("kAsyncEvent", EventRecords.KIND_ASYNC_EVENT) + code("kWakeup", EventRecords.KIND_WAKEUP)
                + code("kTransferNeedsBuffer", EventRecords.KIND_TRANSFER_NEEDS_BUFFER)
                + code("kLargeMessage", EventRecords.KIND_LARGE_MESSAGE)
                + code("kReceiveDone", EventRecords.KIND_RECEIVE_DONE)
                + code("kAgentRequest", EventRecords.KIND_AGENT_REQUEST)
                + code("kAgentReply", EventRecords.KIND_AGENT_REPLY)
                + code("kAgentRelease", EventRecords.KIND_AGENT_RELEASE) + code("kToken", EventRecords.KIND_TOKEN)
                + code("kAdmissionRequest", EventRecords.KIND_ADMISSION_REQUEST)
                + code("kDeviceRemoved", EventRecords.KIND_DEVICE_REMOVED)
                + ", OpKind" + code("kSend", ChannelOp.Kind.SEND.opKind) + code("kCredit", OP_CREDIT)
                + code("kWrite", ChannelOp.Kind.WRITE.opKind)
                + code("kWriteWithImmediate", ChannelOp.Kind.WRITE_IMM.opKind)
                + code("kRead", ChannelOp.Kind.READ.opKind)
                + code("kCompareAndSwap", ChannelOp.Kind.COMPARE_AND_SWAP.opKind)
                + code("kFetchAndAdd", ChannelOp.Kind.FETCH_AND_ADD.opKind)
                + code("kReleaseReceive", Submissions.RELEASE_RECEIVE) + code("kReceive", ChannelOp.Kind.RECEIVE.opKind)
                + code("kTransferBuffer", Submissions.TRANSFER_BUFFER) + code("kControl", OP_CONTROL)
                + code("kTransferRead", OP_TRANSFER_READ)
                + code("kAllocateRemote", ChannelOp.Kind.ALLOCATE_REMOTE.opKind)
                + code("kReleaseRemote", ChannelOp.Kind.RELEASE_REMOTE.opKind)
                + code("kSendToken", ChannelOp.Kind.SEND_TOKEN.opKind) + code("kAgentAnswer", Submissions.AGENT_ANSWER)
                + ", OpStatus" + code("kPeerBufferTooSmall", EventRecords.PEER_BUFFER_TOO_SMALL)
                + code("kPeerCouldNotReceive", EventRecords.PEER_COULD_NOT_RECEIVE)
                + code("kExposeFailed", EventRecords.EXPOSE_FAILED)
                + ", ReceiveStatus" + code("kReceived", EventRecords.RECEIVED)
                + code("kReceiveTooSmall", EventRecords.RECEIVE_TOO_SMALL)
                + ", ClosedCause" + code("kLocal", EventRecords.CLOSED_LOCAL)
                + code("kPeerDisconnected", EventRecords.CLOSED_PEER_DISCONNECTED)
                + code("kOperationFailed", EventRecords.CLOSED_OPERATION_FAILED)
                + code("kProtocolError", EventRecords.CLOSED_PROTOCOL_ERROR)
                + code("kConnectFailed", EventRecords.CLOSED_CONNECT_FAILED)
                + code("kGracefulTimeout", EventRecords.CLOSED_GRACEFUL_TIMEOUT)
                + code("kPeerSilent", EventRecords.CLOSED_PEER_SILENT)
                + code("kOperationTimeout", EventRecords.CLOSED_OPERATION_TIMEOUT)
                + code("kDeviceRemoved", EventRecords.CLOSED_DEVICE_REMOVED)
                + ", ChannelFailure" + code("kAddressError", FAILURE_ADDRESS) + code("kRouteError", FAILURE_ROUTE)
                + code("kRefused", FAILURE_REFUSED) + code("kRejected", FAILURE_REJECTED)
                + code("kUnreachable", FAILURE_UNREACHABLE) + code("kConnectError", FAILURE_CONNECT)
                + code("kSetupError", FAILURE_SETUP) + code("kDeviceRemoved", FAILURE_DEVICE_REMOVED)
                + code("kWrongPort", FAILURE_WRONG_PORT) + code("kAttributeRefused", FAILURE_ATTRIBUTE_REFUSED)
                + code("kAuthFailed", FAILURE_AUTH)
                + ", AuthFailure" + code("kWrongProof", AUTH_WRONG_PROOF) + code("kPeerHungUp", AUTH_PEER_HUNG_UP)
                + code("kTimedOut", AUTH_TIMED_OUT) + code("kNotOffered", AUTH_NOT_OFFERED)
                + ", RejectReason" + code("kVersionMismatch", REJECT_VERSION_MISMATCH)
                + code("kEagerMismatch", REJECT_EAGER_MISMATCH) + code("kAttributeRefused", REJECT_ATTRIBUTE_REFUSED)
                + code("kTooManyPending", REJECT_TOO_MANY_PENDING) + code("kAuthMismatch", REJECT_AUTH_MISMATCH)
                + code("kLastReason", REJECT_LAST)
                + ", DecodeStatus" + code("kControlLength", DECODE_LAST)
                + ", ProtocolViolation" + code("kCreditOverflow", VIOLATION_FIRST)
                + code("kTransferTooLong", VIOLATION_TRANSFER_TOO_LONG) + code("kMalformedFrame", VIOLATION_LAST)
                + ", AgentStatus" + code("kGranted", EventRecords.AGENT_GRANTED)
                + code("kOverCount", EventRecords.AGENT_OVER_COUNT) + code("kOverBytes", EventRecords.AGENT_OVER_BYTES)
                + code("kFailed", EventRecords.AGENT_FAILED) + code("kTimedOut", EventRecords.AGENT_TIMED_OUT)
                + ", AsyncSeverity" + code("kInfo", AsyncEvent.Severity.INFO.ordinal())
                + code("kError", AsyncEvent.Severity.ERROR.ordinal()) + code("kFatal", AsyncEvent.Severity.FATAL.ordinal());
    }
}
