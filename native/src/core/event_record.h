// The records the event loop hands to Java in one batch, written into a direct buffer that Java
// reads with native byte order. One JNI crossing carries up to `capacity` records.
// Layout (32 bytes): kind, a, b, c (int32 each), d, e (int64 each).
//   kCompletion:  a = ibv_wc_status, b = ibv_wc_opcode, c = byte_len, d = wr_id, e = imm_data | qp_num << 32
//   kAsyncEvent:  a = ibv_event_type, b = port number (0 if none), c = severity (AsyncSeverity)
//   kWakeup:      nothing (another thread called wake())
#pragma once

#include <cstdint>

namespace jrdma {

enum class EventKind : int32_t { kCompletion = 1, kAsyncEvent = 2, kWakeup = 3 };

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
