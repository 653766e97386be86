package org.jrdma.impl;

import java.net.InetSocketAddress;
import org.jrdma.AddressResolutionException;
import org.jrdma.ConnectTimeoutException;
import org.jrdma.ConnectionException;
import org.jrdma.ConnectionRefusedException;
import org.jrdma.ConnectionRejectedException;
import org.jrdma.RouteResolutionException;

/** Turns the native connection failure codes (core/event_record.h, wire/handshake.h) into typed exceptions. */
final class ConnectionFailures {
    private static final String[] REASONS = {"none", "malformed handshake", "protocol version mismatch",
        "eager buffer size mismatch", "receive credits out of range", "connection arrived on another device",
        "server is closing", "server could not allocate the channel"};
    private static final String[] DECODE = {"ok", "message shorter than its header", "unknown message type",
        "reserved flag bits set", "length field does not match the bytes received", "length field beyond the receive buffer",
        "more credits returned than were taken", "credit message with a payload"};

    private ConnectionFailures() {
    }

    static String reason(int code) {
        return code >= 0 && code < REASONS.length ? REASONS[code] : "reason " + code;
    }

    static String decodeStatus(int code) {
        return code >= 0 && code < DECODE.length ? DECODE[code] : "decode status " + code;
    }

    static ConnectionException exception(InetSocketAddress remote, int failure, int status, int reason, long detail) {
        String to = remote == null ? "an incoming connection" : "connecting to " + remote;
        switch (failure) {
            case 1:
                return new AddressResolutionException(to + ": address resolution failed (rdma_resolve_addr, status " + status
                        + "): no local RDMA device has a route to it", Math.abs(status));
            case 2:
                return new RouteResolutionException(to + ": route resolution failed (status " + status + ")", Math.abs(status));
            case 3:
                return new ConnectionRefusedException(to + ": connection refused (nobody listens there; cm status " + status + ")",
                        Math.abs(status));
            case 4: {
                String text = reason(reason);
                String extra = reason == 2 ? "; the peer speaks protocol version " + detail
                        : reason == 3 ? "; the peer's eager size is " + detail : "";
                return new ConnectionRejectedException(to + ": rejected by the peer: " + text + extra, text);
            }
            case 5:
                return new ConnectTimeoutException(to + ": the peer is unreachable (timeout, cm status " + status + ")",
                        Math.abs(status));
            case 6:
                return new ConnectionException(to + ": connection error (cm status " + status + ")", Math.abs(status));
            case 7:
                return new ConnectionException(to + ": setting up the queue pair failed (errno " + status + ")", status);
            default:
                return new ConnectionException(to + ": the device was removed", status);
        }
    }
}
