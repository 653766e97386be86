// Allocation failure injection for the device tests: this executable replaces operator new, and
// a test arms a countdown on one thread — the k-th allocation that thread makes from then on throws
// std::bad_alloc. A watchdog ends the process with the step it hung in (a hang cannot be asserted).
#pragma once

#include <atomic>

#include "transports/verbs/verbs_context.h"

namespace jrdma::test {

extern thread_local long fail_countdown;  // < 0: nothing fails; 0: the next allocation fails
extern thread_local long failures;        // allocations made to fail on this thread

constexpr const char* kServerIp = "10.77.0.1";  // rxe0 (test-rxe topology two)
constexpr const char* kClientIp = "10.77.0.2";  // rxe1

inline ContextOptions device(const char* name) {
  ContextOptions options;
  options.device_name = name;
  return options;
}

// The channels both tests use: small, so that a cycle is quick.
ChannelOptions small_channels();
// A listener on kServerIp:port of `context` for small_channels().
VerbsListener* listen_on(VerbsContext& context, int port);

// What the test is doing (the watchdog names it) and which allocation fails.
extern std::atomic<const char*> step;
extern std::atomic<long> step_allocation;
// Runs the body; ends the process with exit status 3 and the step if it takes longer than `seconds`.
void with_watchdog(int seconds, void (*body)());

}  // namespace jrdma::test
