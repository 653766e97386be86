// The records the native side hands to Java, many per JNI crossing: written into a direct buffer
// that Java reads in place with native byte order (org.jrdma.impl.EventRecords names every field).
// Every record about a channel carries the channel's key, so Java finds it with one table lookup.
//
// Layout (32 bytes): kind i32 @0, key i32 @4, a i32 @8, b i32 @12, c i64 @16, d i64 @24.
//   kOpDone            a = status (0 = success, else ibv_wc_status), b = OpKind, c = sequence number
//                      of the operation (Java's), d = result (an atomic's previous value)
//   kOpsUnposted       c = the first sequence number that was not posted: it and every later
//                      operation of the channel failed before reaching the wire (closed)
//   kMessage           a = receive slot, b = payload length, c = message id (the peer's)
//   kImmediate         a = receive slot, b = immediate value (a WRITE WITH IMMEDIATE arrived)
//   kChannelOpen       a = peer's receive credits, b = largest payload the peer accepts
//   kChannelClosed     a = ClosedCause, b = code, c = detail, d = detail2 (per cause, below);
//                      the last record of a channel: every operation not reported yet failed
//   kIncoming          c = channel handle, d = listener handle (a connect request passed the
//                      handshake; the channel exists and accepts)
//   kIncomingRejected  a = wire::RejectReason, b = the peer's offending value, d = listener handle
//   kAsyncEvent        a = ibv_event_type, b = port (0 if none), c = AsyncSeverity
//   kWakeup            nothing (another thread called wake())
//   kTransferNeedsBuffer  c = transfer id (the START's message id), d = length: a rendezvous
//                      message passed the limits and needs a destination (a kTransferBuffer)
//   kLargeMessage      b = length, c = message id: the transfer into the kTransferBuffer is
//                      complete, in message order (delivered like kMessage)
//   kReceiveDone       a = ReceiveStatus, b = bytes received, c = sequence number of the kReceive,
//                      d = message id (kReceived) or the message's length (kReceiveTooSmall);
//                      in message order
//   kAgentRequest      a = wire::RemoteAccess bits, c = the peer's request id, d = size: allocate
//                      it for the peer and answer with a kAgentAnswer (the quota allowed it)
//   kAgentReply        a = wire::AgentStatus, b = rkey, c = sequence number of our kAllocateRemote,
//                      d = address (kGranted) or the detail: the peer's answer, or kTimedOut
//   kAgentRelease      b = rkey, c = address, d = length: the peer released memory we allocated for it
//   kDeviceRemoved     nothing: the context's device is being removed (rdma_cm's DEVICE_REMOVAL on
//                      one of its ids); reported once, its channels close with ClosedCause::kDeviceRemoved
//   kAdmissionRequest  c = request handle, d = listener handle: a connection request waits for the
//                      listener's admission policy (VerbsContext::awaiting, VerbsContext::decide)
//   kToken             a = wire::RemoteAccess bits, b = rkey, c = address, d = length: the peer
//                      gave us access to its memory (in message order with kMessage)
//
// kOpDone's status is an ibv_wc_status, or an OpStatus (from 1000) for a rendezvous send.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jrdma {

enum class EventKind : int32_t {
  kOpDone = 1,
  kOpsUnposted = 2,
  kMessage = 3,
  kImmediate = 4,
  kChannelOpen = 5,
  kChannelClosed = 6,
  kIncoming = 7,
  kIncomingRejected = 8,
  kAsyncEvent = 9,
  kWakeup = 10,
  kTransferNeedsBuffer = 11,
  kLargeMessage = 12,
  kReceiveDone = 13,
  kAgentRequest = 14,
  kAgentReply = 15,
  kAgentRelease = 16,
  kToken = 17,
  kAdmissionRequest = 18,
  kDeviceRemoved = 19,
};

// kOpDone statuses beyond ibv_wc_status: how a rendezvous send ended (d = detail).
enum class OpStatus : int32_t {
  kPeerBufferTooSmall = 1001,   // the receive the peer posted is too small; d = its size
  kPeerCouldNotReceive = 1002,  // the peer could not take the message; d = its errno
  kExposeFailed = 1003,         // registering the source for the peer's READ failed; d = errno
};

// How a posted receive ended (kReceiveDone.a).
enum class ReceiveStatus : int32_t {
  kReceived = 0,
  kReceiveTooSmall = 1,  // the message is longer than the buffer: d = its length. An eager message
                         // then goes to the handler; a rendezvous message's sender fails too.
};

// Why a channel closed (kChannelClosed.a) and what b, c and d carry.
enum class ClosedCause : int32_t {
  kLocal = 1,             // closed by this side (close, abort, context closing)
  kPeerDisconnected = 2,  // the peer disconnected
  kOperationFailed = 3,   // b = ibv_wc_status, c = OpKind (0 for a receive)
  kProtocolError = 4,     // b = wire::DecodeStatus or ProtocolViolation
  kConnectFailed = 5,     // b = ChannelFailure, c = errno or rdma_cm status, d = RejectReason | detail << 16
                          // (kAttributeRefused: c and d as its comment says)
  kGracefulTimeout = 6,   // c = milliseconds waited for posted operations
  kPeerSilent = 7,        // nothing arrived for c milliseconds (keepalive, d = the configured bound)
  kOperationTimeout = 8,  // b = 0: operations waited c milliseconds without one completing (d = the bound);
                          // b = an OpKind: that operation waited c ms, past its own deadline of d ms
  kDeviceRemoved = 9,     // the device went away (rdma_cm DEVICE_REMOVAL); c = ENODEV
};

// Why a connection attempt failed (kConnectFailed).
enum class ChannelFailure : int32_t {
  kAddressError = 1,  // RDMA_CM_EVENT_ADDR_ERROR
  kRouteError = 2,    // RDMA_CM_EVENT_ROUTE_ERROR
  kRefused = 3,       // rejected without our reason: nobody listens there
  kRejected = 4,      // rejected by a jrdma peer with a RejectReason
  kUnreachable = 5,   // RDMA_CM_EVENT_UNREACHABLE (timeout)
  kConnectError = 6,  // RDMA_CM_EVENT_CONNECT_ERROR
  kSetupError = 7,    // a local call failed while setting up; c = errno
  kDeviceRemoved = 8,
  kWrongPort = 9,          // the route leads over another port than the context's; c = that port
  kAttributeRefused = 10,  // the device does not keep a configured queue-pair attribute:
                           // c = QueuePairAttribute, d = configured | kept << 32
  kAuthFailed = 11,        // pre-shared-key authentication failed: c = AuthFailure
};

// Why authentication failed (kAuthFailed's c).
enum class AuthFailure : int32_t {
  kWrongProof = 1,  // the peer's proof does not match our key: the keys differ
  kPeerHungUp = 2,  // the peer disconnected before proving it (it refused our proof)
  kTimedOut = 3,    // no proof within the bound (auth_timeout_ms)
  kNotOffered = 4,  // we hold a key but the server's accept does not authenticate
};

// Protocol violations the engine detects beyond the header checks (kProtocolError codes from 100).
enum class ProtocolViolation : int32_t {
  kCreditOverflow = 100,     // the peer returned more credits than it can have taken
  kMessageOutOfOrder = 101,  // a message id other than the next expected one
  kUnexpectedReceive = 102,  // a receive completion for a slot that was not posted
  kTransferTooLong = 103,    // a rendezvous START above our max_message (or of 0 bytes)
  kTooManyTransfers = 104,   // a START beyond the rendezvous transfers we announced
  kUnknownTransfer = 105,    // a rendezvous DONE for no transfer of ours
  kBadControlMessage = 106,  // a reserved field set or an unknown status in a control payload
  kUnknownAllocation = 107,  // an AGENT_RELEASE of memory we did not allocate for the peer
  kUnknownRequest = 108,     // an AGENT_REPLY to no request of ours
  kDuplicateRequest = 109,   // an AGENT_REQUEST whose id is already waiting for an answer
  kNotAuthenticated =
      110,                // a message or one-sided request before the peer proved the key, or an AUTH when none was due
  kMalformedFrame = 111,  // TCP / shared memory: a frame the transport does not carry (malformed header, a response
                          // to nothing, a message beyond the receive buffers or with none posted, a ring index
                          // that cannot be right, rings it was not given)
};

// How an async event affects what depends on the device.
enum class AsyncSeverity : int32_t {
  kInfo = 0,   // e.g. port active, GID change, communication established
  kError = 1,  // one port or queue pair is affected (port error, QP fatal)
  kFatal = 2,  // the device or a CQ is lost: everything on the context fails
};

struct EventRecord {
  int32_t kind;
  int32_t key;
  int32_t a;
  int32_t b;
  int64_t c;
  int64_t d;
};
static_assert(sizeof(EventRecord) == 32 && offsetof(EventRecord, key) == 4 && offsetof(EventRecord, a) == 8 &&
                  offsetof(EventRecord, b) == 12 && offsetof(EventRecord, c) == 16 && offsetof(EventRecord, d) == 24,
              "reported to Java by the layout check (jni/layout.cc)");

// An object of ours as a record's handle (a channel, listener or admission request): Java hands it
// back to the context that put it there.
inline int64_t handle_of(const void* object) noexcept {
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(object));
}

inline EventRecord make_record(EventKind kind, uint32_t key, int32_t a = 0, int32_t b = 0, int64_t c = 0,
                               int64_t d = 0) noexcept {
  return EventRecord{static_cast<int32_t>(kind), static_cast<int32_t>(key), a, b, c, d};
}

// Where an engine puts its records; the context queues them for the next batch to Java.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void emit(const EventRecord& record) = 0;
};

}  // namespace jrdma
