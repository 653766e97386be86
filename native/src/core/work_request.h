// A work request as Java describes it: fixed 64-byte records in native byte order, written into a
// channel's posting buffer and posted together by Channel::post_batch — one JNI call and one
// ibv_post_send (one doorbell) for everything a caller or an event-loop batch posts. The layout
// is mirrored by org.jrdma.impl.PostBuffer; keep the two in step.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jrdma {

enum class WorkRequestKind : uint8_t {
  kSend = 1,    // a data message: header slot + the caller's bytes
  kCredit = 2,  // an explicit credit message: header only
  kWrite = 3,
  kWriteWithImmediate = 4,
  kRead = 5,
  kCompareAndSwap = 6,
  kFetchAndAdd = 7,
};

// Only some work requests ask for a completion (selective signaling): RC completes a send queue
// in order, so one completion also tells that every earlier, unsignaled request is done.
constexpr uint8_t kWorkRequestSignaled = 1;

struct WorkRequestDescriptor {
  uint8_t kind;        // WorkRequestKind
  uint8_t flags;       // kWorkRequestSignaled
  uint16_t credits;    // sends: receive credits returned to the peer in the header
  uint32_t slot;       // the operation's slot (wr_id), < queue depth
  uint64_t local_address;
  uint32_t length;
  uint32_t lkey;
  uint64_t remote_address;
  uint32_t rkey;
  uint32_t immediate;  // host order; sent in network order
  uint64_t message_id;
  uint64_t compare_add;
  uint64_t swap;
};
static_assert(sizeof(WorkRequestDescriptor) == 64, "the Java side writes 64-byte records");
static_assert(offsetof(WorkRequestDescriptor, local_address) == 8 && offsetof(WorkRequestDescriptor, length) == 16 &&
                  offsetof(WorkRequestDescriptor, remote_address) == 24 && offsetof(WorkRequestDescriptor, rkey) == 32 &&
                  offsetof(WorkRequestDescriptor, message_id) == 40 && offsetof(WorkRequestDescriptor, compare_add) == 48 &&
                  offsetof(WorkRequestDescriptor, swap) == 56,
              "layout shared with org.jrdma.impl.PostBuffer");

}  // namespace jrdma
