package org.jrdma.impl;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.AddressResolutionException;
import org.jrdma.AdmissionRefusedException;
import org.jrdma.AuthenticationException;
import org.jrdma.BufferTooSmallException;
import org.jrdma.ConnectTimeoutException;
import org.jrdma.ConnectionException;
import org.jrdma.ConnectionRefusedException;
import org.jrdma.ConnectionRejectedException;
import org.jrdma.DeviceRemovedException;
import org.jrdma.OperationTimeoutException;
import org.jrdma.PeerSilentException;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaException;
import org.jrdma.RdmaOperationException;
import org.jrdma.RegistrationException;
import org.jrdma.RouteResolutionException;

/**
 * Turns the native codes of a channel's end (native/src/protocol/event_record.h: ClosedCause,
 * ChannelFailure, ProtocolViolation; wire/handshake.h, wire/message_header.h) into typed exceptions.
 * The texts live here only; native code reports codes.
 */
final class ConnectionFailures {
    /** errno: a channel needs more entries than a completion queue of the device holds (CompletionQueues::reserve). */
    private static final int ENOSPC = 28;

    private static final String[] REASONS = {"none", "malformed handshake", "protocol version mismatch",
        "eager buffer size mismatch", "receive credits out of range", "connection arrived on another device",
        "server is closing", "server could not allocate the channel", "connection arrived on another port of the device",
        "the server's device does not keep a configured queue-pair attribute",
        "too many connection requests pending", "refused by the server's admission policy",
        "one side holds a pre-shared key, the other not",
        "no shared memory with the peer (transport shm takes peers on the same host only)"};
    /** QueuePairAttribute (native/src/transports/verbs/verbs_channel.h) -> the variable that configures it. */
    private static final String[] ATTRIBUTES = {"attribute", "RDMA_SL", "RDMA_TRAFFIC_CLASS", "RDMA_MTU", "RDMA_GID_INDEX",
        "RDMA_PKEY"};
    private static final String[] DECODE = {"ok", "message shorter than its header", "unknown message type",
        "reserved flag bits set", "length field does not match the bytes received", "length field beyond the receive buffer",
        "more credits returned than were taken", "credit message with a payload",
        "rendezvous control message of the wrong length"};
    private static final String[] VIOLATIONS = {"the peer returned more credits than it can owe in total",
        "a message id other than the next one (lost or repeated message)", "a receive completion for a buffer that was not posted",
        "a rendezvous message above this side's maxMessageSize (or empty)",
        "more rendezvous messages at a time than this side's rendezvousTransfers",
        "a rendezvous answer for no transfer of ours", "a reserved field or an unknown status in a control message",
        "a release of memory this side did not allocate for the peer", "an allocation answer for no request of ours",
        "an allocation request whose id is already waiting",
        "a message or one-sided request before the peer proved the pre-shared key",
        "a frame the TCP or shared-memory transport does not carry (malformed, a response to nothing, a message"
            + " beyond the receive buffers or with none posted, a corrupt ring index)"};

    private ConnectionFailures() {
    }

    /** What a server reports of a connection it rejected (the peer's value where the reason has one). */
    static ConnectionRejectedException incomingRejected(int reason, int peerValue, int ourEagerSize) {
        String text = reason(reason);
        String extra = reason == 2 ? ": the client speaks protocol version " + peerValue
                : reason == 3 ? ": the client's eager size is " + peerValue + ", ours " + ourEagerSize
                : reason == 9 ? ": " + attributeRefused(peerValue & 0xffffffffL) : "";
        return new ConnectionRejectedException("rejected an incoming connection: " + text + extra, text);
    }

    static String reason(int code) {
        return code >= 0 && code < REASONS.length ? REASONS[code] : "reason " + code;
    }

    static String decodeStatus(int code) {
        if (code >= NativeCodes.VIOLATION_FIRST && code < NativeCodes.VIOLATION_FIRST + VIOLATIONS.length) {
            return VIOLATIONS[code - NativeCodes.VIOLATION_FIRST];
        }
        return code >= 0 && code < DECODE.length ? DECODE[code] : "decode status " + code;
    }

    /** A configured queue-pair attribute the device did not keep (read back after the transition). */
    static String attributeRefused(int attribute, long configured, long kept) {
        String variable = ATTRIBUTES[attribute >= 0 && attribute < ATTRIBUTES.length ? attribute : 0];
        return "the device does not keep " + variable + "=" + configured + " on the queue pair (it reads back " + kept + ")"
                + (attribute == 1 ? "; Soft-RoCE (rxe) has no service level: use RDMA_SL=0 there" : "");
    }

    /** The same, from the detail of a reject (9): attribute | kept << 8 | configured << 20. */
    static String attributeRefused(long rejectDetail) {
        return attributeRefused((int) (rejectDetail & 0xff), (rejectDetail >>> 20) & 0xfff, (rejectDetail >>> 8) & 0xfff);
    }

    /**
     * Why the engine closed a channel (kChannelClosed); null for a local close. {@code transportFailure}: the
     * transport's own words for an operation failure ("" if it has none), e.g. the stream's socket error.
     */
    static Throwable closeCause(InetSocketAddress remote, int cause, int code, long detail, long detail2, String transportFailure) {
        switch (cause) {
            case EventRecords.CLOSED_LOCAL:
                return null;
            case EventRecords.CLOSED_PEER_DISCONNECTED:
                return new RdmaClosedException("the peer disconnected (" + remote + ")");
            case EventRecords.CLOSED_OPERATION_FAILED:
                if (code < 0) {
                    return new RdmaException("posting to the queue pair of the channel to " + remote + " failed (errno "
                            + detail2 + "); channel closed", (int) detail2);
                }
                if (!transportFailure.isEmpty()) {
                    return new RdmaOperationException(ChannelOp.Kind.verbOf((int) detail), code, WorkCompletion.status(code),
                            transportFailure + " (channel to " + remote + "); channel closed");
                }
                return new RdmaOperationException(ChannelOp.Kind.verbOf((int) detail), code, WorkCompletion.status(code));
            case EventRecords.CLOSED_PROTOCOL_ERROR:
                return new ProtocolException("malformed message from " + remote + ": " + decodeStatus(code)
                        + (code == NativeCodes.VIOLATION_TRANSFER_TOO_LONG ? " (it announced " + detail + " bytes)" : "") + "; channel closed");
            case EventRecords.CLOSED_CONNECT_FAILED:
                if (code == NativeCodes.FAILURE_ATTRIBUTE_REFUSED) {
                    String to = remote == null ? "an incoming connection" : "connecting to " + remote;
                    return new ConnectionException(to + ": " + attributeRefused((int) detail, detail2 & 0xffffffffL,
                            detail2 >>> 32), 95 /* EOPNOTSUPP */);
                }
                return exception(remote, code, (int) detail, (int) (detail2 & 0xffff), detail2 >>> 16);
            case EventRecords.CLOSED_PEER_SILENT:
                return new PeerSilentException("nothing arrived from " + remote + " for " + detail
                        + " ms (keepaliveMillis " + detail2 + "): the peer is stopped, hung or unreachable", detail);
            case EventRecords.CLOSED_OPERATION_TIMEOUT:
                if (code != 0) {
                    return new OperationTimeoutException("a " + ChannelOp.Kind.verbOf(code) + " to " + remote
                            + " was not done " + detail + " ms after it was issued, past its deadline of " + detail2
                            + " ms (RdmaChannel.withDeadline); the channel closed and its pending operations failed",
                            detail);
                }
                return new OperationTimeoutException("operations to " + remote + " waited " + detail
                        + " ms without one completing (operationTimeoutMillis " + detail2 + "): the peer returns no"
                        + " credits or answers, or the device does not complete", detail);
            case EventRecords.CLOSED_DEVICE_REMOVED:
                return new DeviceRemovedException("the device under the channel to " + remote
                        + " was removed; channel closed");
            case EventRecords.CLOSED_GRACEFUL_TIMEOUT:
                return new RdmaClosedException("closed: operations still in flight after " + detail
                        + " ms of graceful close were failed");
            default:
                return new RdmaClosedException("closed (cause " + cause + ")");
        }
    }

    /** How a send by rendezvous failed (kOpDone with an OpStatus; native/src/protocol/event_record.h). */
    static RdmaException rendezvousFailure(InetSocketAddress remote, int status, int length, long detail) {
        switch (status) {
            case EventRecords.PEER_BUFFER_TOO_SMALL:
                return new BufferTooSmallException("the receive " + remote + " posted for this message holds " + detail
                        + " bytes; the message has " + length + " (nothing was transferred)", length, detail);
            case EventRecords.PEER_COULD_NOT_RECEIVE:
                return new RdmaException(remote + " could not allocate " + length + " bytes for this message (errno " + detail
                        + "); nothing was transferred", (int) detail);
            case EventRecords.EXPOSE_FAILED:
                return new RegistrationException("registering the " + length + " bytes of this message for the peer's"
                        + " RDMA READ failed (ibv_reg_mr, errno " + detail + "; for ENOMEM or EPERM raise the locked-memory"
                        + " limit, ulimit -l)", (int) detail);
            default:
                return new RdmaException("send failed (status " + status + ")", 0);
        }
    }

    /** A posted receive too small for the message that came. */
    static BufferTooSmallException receiveTooSmall(InetSocketAddress remote, long required, int size) {
        return new BufferTooSmallException("a message of " + required + " bytes from " + remote + " does not fit the"
                + " posted receive of " + size + " bytes", required, size);
    }

    /** The server's admission policy refused us: its code and its text (bytes from the peer, decoded leniently). */
    static ConnectionException admissionRefused(InetSocketAddress remote, long code, byte[] text) {
        String reason = text == null ? "" : new String(text, StandardCharsets.UTF_8);
        return new AdmissionRefusedException("connecting to " + remote + ": refused by the server's admission policy"
                + " (code " + (int) code + (reason.isEmpty() ? "" : ": " + reason) + ")", (int) code, reason);
    }

    static ConnectionException exception(InetSocketAddress remote, int failure, int status, int reason, long detail) {
        String to = remote == null ? "an incoming connection" : "connecting to " + remote;
        switch (failure) {
            case NativeCodes.FAILURE_ADDRESS:
                return new AddressResolutionException(to + ": address resolution failed (rdma_resolve_addr, status " + status
                        + "): no local RDMA device has a route to it", Math.abs(status));
            case NativeCodes.FAILURE_ROUTE:
                return new RouteResolutionException(to + ": route resolution failed (status " + status + ")", Math.abs(status));
            case NativeCodes.FAILURE_REFUSED:
                return new ConnectionRefusedException(to + ": connection refused (nobody listens there; cm status " + status + ")",
                        Math.abs(status));
            case NativeCodes.FAILURE_REJECTED: {
                String text = reason(reason);
                String extra = reason == NativeCodes.REJECT_VERSION_MISMATCH ? "; the peer speaks protocol version " + detail
                        : reason == NativeCodes.REJECT_EAGER_MISMATCH ? "; the peer's eager size is " + detail
                        : reason == NativeCodes.REJECT_ATTRIBUTE_REFUSED ? ": " + attributeRefused(detail)
                        : reason == NativeCodes.REJECT_TOO_MANY_PENDING ? " (the server's maxPendingConnections is " + detail + ")"
                        : reason == NativeCodes.REJECT_AUTH_MISMATCH ? (detail == 1 ? ": the server requires authentication (RdmaConfig.preSharedKey)"
                                : ": the server has no pre-shared key") : "";
                if (reason == NativeCodes.REJECT_AUTH_MISMATCH) {
                    return new AuthenticationException(to + ": rejected by the peer: " + text + extra);
                }
                return new ConnectionRejectedException(to + ": rejected by the peer: " + text + extra, text);
            }
            case NativeCodes.FAILURE_UNREACHABLE:
                return new ConnectTimeoutException(to + ": the peer is unreachable (timeout, cm status " + status + ")",
                        Math.abs(status));
            case NativeCodes.FAILURE_CONNECT:
                return new ConnectionException(to + ": connection error (cm status " + status + ")", Math.abs(status));
            case NativeCodes.FAILURE_SETUP:
                if (status == ENOSPC) {
                    return new ConnectionException(to + ": a channel takes 2 x queueDepth completion queue entries, more than"
                            + " a completion queue of the device holds (max_cqe); lower queueDepth (RDMA_QUEUE_DEPTH)", status);
                }
                return new ConnectionException(to + ": setting up the queue pair failed (errno " + status + "): the device"
                        + " refused the queue pair or one of its configured attributes (RDMA_MTU, RDMA_GID_INDEX, RDMA_SL,"
                        + " RDMA_TRAFFIC_CLASS, RDMA_PKEY; the first two need a global route on InfiniBand)", status);
            case NativeCodes.FAILURE_AUTH:
                return new AuthenticationException(to + ": authentication failed: " + (status == NativeCodes.AUTH_WRONG_PROOF
                        ? "the peer's proof does not match our pre-shared key (the keys differ)"
                        : status == NativeCodes.AUTH_PEER_HUNG_UP ? "the peer hung up before proving the key (it refused our proof: the keys differ)"
                        : status == NativeCodes.AUTH_TIMED_OUT ? "no proof from the peer within connectTimeoutMillis"
                        : "we hold a pre-shared key but the server does not authenticate"));
            case NativeCodes.FAILURE_WRONG_PORT:
                return new ConnectionException(to + ": the route leads over port " + status + " of the device, but the"
                        + " context uses another port (RDMA_DEVICE_PORT)", status);
            case NativeCodes.FAILURE_DEVICE_REMOVED:
                return new ConnectionException(to + ": the device was removed", status);
            default:
                return new ConnectionException(to + ": connection failed (failure " + failure + ", status " + status + ")",
                        Math.abs(status));
        }
    }

    /**
     * The channel's connected future, failed with {@link org.jrdma.ConnectTimeoutException} (and the
     * channel with it) when the connection is not open after {@code millis}: the last resort should
     * the transport's own timeouts not fire.
     */
    static CompletableFuture<RdmaChannel> withDeadline(JniChannel channel,
            InetSocketAddress remote, long millis) {
        return channel.connectedFuture().orTimeout(millis, TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> {
                    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    if (cause instanceof TimeoutException) {
                        ConnectTimeoutException timeout = new ConnectTimeoutException(
                                "connecting to " + remote + " took longer than " + millis + " ms", 0);
                        channel.fail(timeout);
                        return CompletableFuture.failedFuture(timeout);
                    }
                    return CompletableFuture.failedFuture(cause);
                });
    }
}
