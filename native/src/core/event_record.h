// The records the event loop hands to Java in one batch, written into a direct buffer that Java
// reads with native byte order. One JNI crossing carries up to `capacity` records.
// Layout (32 bytes): kind, a, b, c (int32 each), d, e (int64 each).
//   kCompletion:      a = ibv_wc_status, b = ibv_wc_opcode, c = byte_len, d = wr_id, e = imm (host order) | qp_num << 32
//   kAsyncEvent:      a = ibv_event_type, b = port number (0 if none), c = severity (AsyncSeverity)
//   kWakeup:          nothing (another thread called wake())
//   kMessage:         a = receive slot, b = payload length, c = credits returned, d = wr_id, e = type | message id << 8
//   kImmediate:       a = receive slot, b = immediate value, d = wr_id (a WRITE_WITH_IMM arrived)
//   kProtocolError:   a = receive slot, b = wire::DecodeStatus, d = wr_id
//   kChannelReady:    a = key, b = peer credits, c = peer eager (passive side; 0 when connecting),
//                     d = channel handle. The QP exists: Java registers receive memory and calls
//                     accept0 (passive) or continueConnect0 (active).
//   kEstablished:     a = peer credits, b = peer eager size, d = channel handle
//   kChannelFailed:   a = ChannelFailure, b = errno or cm status, c = wire::RejectReason, d = channel handle,
//                     e = reject detail
//   kDisconnected:    d = channel handle
//   kIncoming:        d = channel handle, e = listener handle (a connect request passed the handshake)
//   kIncomingRejected: a = wire::RejectReason, b = the peer's offending value (version, eager size),
//                     e = listener handle (a connect request was refused)
#pragma once

#include <cstdint>

namespace jrdma {

enum class EventKind : int32_t {
  kCompletion = 1,
  kAsyncEvent = 2,
  kWakeup = 3,
  kMessage = 4,
  kImmediate = 5,
  kProtocolError = 6,
  kChannelReady = 7,
  kEstablished = 8,
  kChannelFailed = 9,
  kDisconnected = 10,
  kIncoming = 11,
  kIncomingRejected = 12,
};

// Why a connection attempt failed (kChannelFailed.a).
enum class ChannelFailure : int32_t {
  kAddressError = 1,   // RDMA_CM_EVENT_ADDR_ERROR
  kRouteError = 2,     // RDMA_CM_EVENT_ROUTE_ERROR
  kRefused = 3,        // rejected without our reason: nobody listens there
  kRejected = 4,       // rejected by a jrdma peer with a RejectReason
  kUnreachable = 5,    // RDMA_CM_EVENT_UNREACHABLE (timeout)
  kConnectError = 6,   // RDMA_CM_EVENT_CONNECT_ERROR
  kSetupError = 7,     // a local call failed while setting up; b = errno
  kDeviceRemoved = 8,
};

// How an async event affects what depends on the device.
enum class AsyncSeverity : int32_t {
  kInfo = 0,   // e.g. port active, GID change, communication established
  kError = 1,  // one port or queue pair is affected (port error, QP fatal)
  kFatal = 2,  // the device or a CQ is lost: everything on the context fails
};

struct EventRecord {
  int32_t kind;
  int32_t a;
  int32_t b;
  int32_t c;
  int64_t d;
  int64_t e;
};
static_assert(sizeof(EventRecord) == 32, "the Java side reads 32-byte records");

}  // namespace jrdma
