// How a context's loop waits (PollMode, the ordinal of org.jrdma.PollMode) and, for the adaptive
// mode, how long it spins on the CQ before it arms the CQ and sleeps in epoll.
//
// Sleeping costs a wake-up (an interrupt, a CQ event read, a thread switch: tens of microseconds on
// rxe, several on hardware) on every message; spinning costs a core. The adaptive mode spins only
// when that pays: after a spin finds work at t, the next spin may last 2t (at most the configured
// maximum); a spin that finds nothing halves the budget, down to none; and a completion that ended a
// sleep s <= maximum after the loop ran out of work teaches a budget of 2s (a spin that long would have
// caught it). A
// ping-pong thus learns to spin about two round trips, and an idle context stops spinning after a
// few misses and sleeps like the event mode. Pure logic: host-tested (adaptive_spin_test.cc).
#pragma once

#include <algorithm>
#include <cstdint>

namespace jrdma {

enum class PollMode : int { kEvent = 0, kAdaptive = 1, kBusy = 2 };

class AdaptiveSpin {
 public:
  // Below this a spin is not worth its clock reads: the budget drops to zero.
  static constexpr uint64_t kFloorNs = 500;

  explicit AdaptiveSpin(uint64_t max_ns) noexcept : max_ns_(max_ns) {}

  uint64_t budget_ns() const noexcept { return budget_ns_; }
  uint64_t max_ns() const noexcept { return max_ns_; }

  // A spin found work after waiting `waited_ns`.
  void found(uint64_t waited_ns) noexcept { budget_ns_ = std::max(budget_ns_, std::min(max_ns_, 2 * waited_ns)); }

  // A spin of the whole budget found nothing.
  void missed() noexcept {
    budget_ns_ /= 2;
    if (budget_ns_ < kFloorNs) budget_ns_ = 0;
  }

  // The loop ran out of work, (spun and) slept, and a completion woke it `slept_ns` after it ran out.
  void woken_after(uint64_t slept_ns) noexcept {
    if (slept_ns <= max_ns_) budget_ns_ = std::max(budget_ns_, std::min(max_ns_, 2 * slept_ns));
  }

 private:
  uint64_t max_ns_;
  uint64_t budget_ns_ = 0;
};

}  // namespace jrdma
