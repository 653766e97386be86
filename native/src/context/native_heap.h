// Native memory a burst of closed channels freed goes back to the system. glibc keeps what threads
// free in their malloc arenas and by itself returns only the top of a heap: 10,000 TCP channels opened
// and closed left about 500 MiB resident (engines, transports and their queues, freed on the loop
// thread and on Java's). Every channel table counts the channels it gives up; a loop's tick trims
// every arena (malloc_trim(0): free pages anywhere in them are given back) once enough channels went
// since the last trim, at most once a second over all contexts of the process, and once more a few
// seconds after the last such trim: what goes after the channels (the fewer than 64 that closed last,
// the direct buffers Java's collector frees later) would otherwise stay with the process until the
// next burst (CI saw 80 MiB of 10,000 TCP channels stay resident).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace jrdma {

class NativeHeap {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint64_t kChannelsBetweenTrims = 64;
  static constexpr std::chrono::seconds kTrimInterval{1};
  static constexpr std::chrono::seconds kSettleDelay{3};

  // A channel left its table (any thread).
  static void channel_gone() noexcept { gone_.fetch_add(1, std::memory_order_relaxed); }
  // A loop's tick: trims when kChannelsBetweenTrims channels went since the last trim and
  // kTrimInterval passed, or kSettleDelay after the last such trim (once). True when it trimmed (tests).
  static bool trim_if_channels_went(Clock::time_point now) noexcept;

 private:
  static void trim() noexcept;

  static std::atomic<uint64_t> gone_;
  static std::atomic<int64_t> last_trim_ns_;  // steady clock
  static std::atomic<int64_t> settle_at_ns_;  // the trim after the last one a burst caused; 0: none due
};

}  // namespace jrdma
