#include "context/native_heap.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace jrdma {

std::atomic<uint64_t> NativeHeap::gone_{0};
std::atomic<int64_t> NativeHeap::last_trim_ns_{0};
std::atomic<int64_t> NativeHeap::settle_at_ns_{0};

namespace {
int64_t nanoseconds(NativeHeap::Clock::time_point t) noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
}  // namespace

// Every channel counted so far is given back now: the count starts again.
void NativeHeap::trim() noexcept {
  gone_.store(0, std::memory_order_relaxed);
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

bool NativeHeap::trim_if_channels_went(Clock::time_point now) noexcept {
  int64_t now_ns = nanoseconds(now);
  if (gone_.load(std::memory_order_relaxed) < kChannelsBetweenTrims) {
    int64_t settle_at = settle_at_ns_.load(std::memory_order_relaxed);
    if (settle_at == 0 || now_ns < settle_at) return false;
    // One loop trims; the others find it taken (or a newer burst's settling trim set meanwhile).
    if (!settle_at_ns_.compare_exchange_strong(settle_at, 0, std::memory_order_relaxed)) return false;
    trim();  // the few that went since the burst's last trim too
    return true;
  }
  int64_t last = last_trim_ns_.load(std::memory_order_relaxed);
  if (last != 0 && now_ns - last < std::chrono::nanoseconds(kTrimInterval).count()) return false;
  // One loop of the process trims; the others find the interval taken.
  if (!last_trim_ns_.compare_exchange_strong(last, now_ns, std::memory_order_relaxed)) return false;
  settle_at_ns_.store(now_ns + std::chrono::nanoseconds(kSettleDelay).count(), std::memory_order_relaxed);
  trim();
  return true;
}

}  // namespace jrdma
