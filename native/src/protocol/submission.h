// What Java asks a channel to do: fixed 64-byte records in native byte order, written by
// org.jrdma.impl.Submissions into a direct buffer and handed to ChannelEngine::submit in one JNI
// call per batch. They carry only the operation; the engine decides slots, credits, message ids,
// signaling and posting order.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jrdma {

enum class OpKind : uint8_t {
  kSend = 1,    // a data message: header + the caller's bytes
  kCredit = 2,  // internal: an explicit credit message (never submitted by Java)
  kWrite = 3,
  kWriteWithImmediate = 4,
  kRead = 5,
  kCompareAndSwap = 6,
  kFetchAndAdd = 7,
  kReleaseReceive = 8,   // the application is done with receive slot `receive_slot`
  kReceive = 9,          // the next message goes into [local_address, +length) (lkey) instead of
                         // the handler; reported by kReceiveDone with `seq`
  kTransferBuffer = 10,  // the destination of rendezvous `compare_add` (a kTransferNeedsBuffer):
                         // [local_address, +length) (lkey); length 0 refuses it, `swap` = errno
  kControl = 11,         // internal: a rendezvous control message, header slot only (never submitted)
  kTransferRead = 12,    // internal: an RDMA READ of a rendezvous chunk (never submitted)
  // The remote-memory agent (protocol/agent.h). Each is a control message of its own.
  kAllocateRemote = 13,  // ask the peer for `compare_add` bytes with `immediate` = wire::RemoteAccess
                         // bits; reported by kAgentReply (not kOpDone) with `seq`
  kReleaseRemote = 14,   // give back [remote_address, +compare_add) (rkey) the peer allocated for us
  kSendToken = 15,       // hand the peer [remote_address, +compare_add) (rkey, `immediate` = access)
  kAgentAnswer = 16,     // Java's answer to the peer's request `compare_add`: `immediate` = AgentStatus,
                         // remote_address and rkey (granted) or `swap` = detail (refused)
};

const char* op_verb(OpKind kind) noexcept;

struct Submission {
  uint8_t kind;  // OpKind
  uint8_t reserved0;
  uint16_t reserved1;
  union {
    uint32_t receive_slot;  // kReleaseReceive
    uint32_t deadline_ms;   // operations reported by kOpDone: fail the channel if not reported within
                            // this many milliseconds of submission (0: no deadline of its own)
  };
  uint64_t local_address;
  uint32_t length;
  uint32_t lkey;
  uint64_t remote_address;
  uint32_t rkey;
  uint32_t immediate;  // host order; sent in network order
  uint64_t seq;        // Java's sequence number of the operation, echoed in kOpDone / kOpsUnposted
  uint64_t compare_add;
  uint64_t swap;
};
static_assert(sizeof(Submission) == 64 && offsetof(Submission, receive_slot) == 4 &&
                  offsetof(Submission, deadline_ms) == 4 && offsetof(Submission, local_address) == 8 &&
                  offsetof(Submission, length) == 16 && offsetof(Submission, lkey) == 20 &&
                  offsetof(Submission, remote_address) == 24 && offsetof(Submission, rkey) == 32 &&
                  offsetof(Submission, immediate) == 36 && offsetof(Submission, seq) == 40 &&
                  offsetof(Submission, compare_add) == 48 && offsetof(Submission, swap) == 56,
              "reported to Java by the layout check (jni/layout.cc)");

}  // namespace jrdma
