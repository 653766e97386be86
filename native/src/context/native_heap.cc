#include "context/native_heap.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace jrdma {

std::atomic<uint64_t> NativeHeap::gone_{0};
std::atomic<int64_t> NativeHeap::last_trim_ns_{0};

bool NativeHeap::trim_if_channels_went(Clock::time_point now) noexcept {
  if (gone_.load(std::memory_order_relaxed) < kChannelsBetweenTrims) return false;
  int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  int64_t last = last_trim_ns_.load(std::memory_order_relaxed);
  if (last != 0 && now_ns - last < std::chrono::nanoseconds(kTrimInterval).count()) return false;
  // One loop of the process trims; the others find the interval taken.
  if (!last_trim_ns_.compare_exchange_strong(last, now_ns, std::memory_order_relaxed)) return false;
  gone_.store(0, std::memory_order_relaxed);
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  return true;
}

}  // namespace jrdma
