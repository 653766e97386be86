// How a context's loop waits (PollMode, the ordinal of org.jrdma.PollMode) and, for the adaptive
// mode, how long it spins on the CQ before it arms the CQ and sleeps in epoll.
//
// Sleeping costs a wake-up on every message (an interrupt, a CQ event read, a thread switch: a few
// microseconds on hardware, 70-150 us in an emulated guest, more when the wake-up preempts a thread
// that shares the CPU); spinning costs a core. The adaptive mode weighs the two from what it observes,
// with nothing to tune:
// - the gaps: how long after the loop ran out of work the next work came (caught by a spin, or by the
//   completion that ended a sleep; a sleep that ended by its timeout says "at least that long"), kept
//   in a decaying histogram of powers of two;
// - the price of a sleep on this machine: how late a timed sleep returns after its timeout, beyond the
//   thread's timer slack (measured once per process by two short sleeps, then on every sleep of the
//   context's loop that ends by its timeout).
// The budget covers 90 % of the recent gaps with a margin, if that is within the ceiling:
// kWakeupsWorthSpinning wake-ups' worth of spinning (100 us to 10 ms), or the configured maximum
// (RdmaConfig.adaptiveSpinMicros, when set). Gaps mostly beyond the ceiling get no spin at all (a spin
// that mostly misses is pure waste); gaps mostly within it get the whole ceiling. Spins that find
// nothing before the loop sleeps to its timeout (an idle context, not a gap a little longer than the
// spin) may take at most 1 / kWastedShare of a core in any second, so an idle context sleeps like the
// event mode. A ping-pong thus spins about one round trip; a server whose requests come further apart
// than a few wake-ups' worth sleeps. Pure logic: host-tested (adaptive_spin_test.cc).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace jrdma {

enum class PollMode : int { kEvent = 0, kAdaptive = 1, kBusy = 2 };

class AdaptiveSpin {
 public:
  // Below this a spin is not worth its clock reads.
  static constexpr uint64_t kFloorNs = 500;
  // A spin may last as long as this many sleeps cost (the learned ceiling) ...
  static constexpr uint64_t kWakeupsWorthSpinning = 10;
  // ... within these bounds; the lower one is the ceiling until a sleep's price was measured.
  static constexpr uint64_t kMinCeilingNs = 100'000;
  static constexpr uint64_t kMaxCeilingNs = 10'000'000;
  // Spinning before an idle sleep, in any window of kWindowNs: half a percent of a core.
  static constexpr uint64_t kWindowNs = 1'000'000'000;
  static constexpr uint64_t kWastedShare = 200;  // 1 / 200 of the window
  // The histogram forgets: every kHalveEvery samples each count is halved (~2 x kHalveEvery remembered).
  static constexpr unsigned kHalveEvery = 32;

  // `configured_max_ns`: the ceiling the application set; 0: learn it from the price of a sleep.
  explicit AdaptiveSpin(uint64_t configured_max_ns) noexcept : configured_max_ns_(configured_max_ns) {}

  // How long the loop may spin now, at `now_ns` (any monotonic clock); 0: sleep at once.
  uint64_t budget_ns(uint64_t now_ns) noexcept {
    if (now_ns >= window_end_ns_) {
      window_end_ns_ = now_ns + kWindowNs;
      wasted_ns_ = 0;
    }
    return wasted_ns_ >= kWindowNs / kWastedShare ? 0 : budget_ns_;
  }
  uint64_t ceiling_ns() const noexcept {
    if (configured_max_ns_ > 0) return configured_max_ns_;
    return std::clamp(kWakeupsWorthSpinning * wakeup_ns_, kMinCeilingNs, kMaxCeilingNs);
  }
  // The measured price of a sleep (0 until measured).
  uint64_t wakeup_ns() const noexcept { return wakeup_ns_; }

  // A spin found work `waited_ns` after the loop ran out of it.
  void found(uint64_t waited_ns) noexcept { add_gap(waited_ns); }
  // A spin of `spun_ns` found nothing (the loop sleeps now; what ends the sleep tells the gap).
  void missed(uint64_t spun_ns) noexcept { unsettled_ns_ = spun_ns; }
  // Work ended a sleep, `gap_ns` after the loop ran out of it. A spin before it that fell short was
  // not wasted on idleness, only too short: the gap teaches a longer one.
  void woken_after(uint64_t gap_ns) noexcept {
    unsettled_ns_ = 0;
    add_gap(gap_ns);
  }
  // A sleep ended by its timeout, `idle_ns` after the loop ran out of work: the gap is longer, and a
  // spin before it was spent on an idle context. Only a wait beyond the ceiling says something about
  // the gap (a shorter timeout, e.g. Java's next timer, does not).
  void idle_for(uint64_t idle_ns) noexcept {
    wasted_ns_ += unsettled_ns_;
    unsettled_ns_ = 0;
    if (idle_ns >= ceiling_ns()) add_gap(idle_ns);
  }
  // A timed sleep returned `late_ns` after its timeout (the timer slack already taken off).
  void sleep_returned_late(uint64_t late_ns) noexcept {
    wakeup_ns_ = wakeup_ns_ == 0 ? std::max<uint64_t>(late_ns, 1) : (3 * wakeup_ns_ + late_ns) / 4;
    recompute();
  }

 private:
  // Bucket i holds gaps below kFirstBoundNs << i (and at least half that); the last holds the rest.
  static constexpr uint64_t kFirstBoundNs = 512;
  static constexpr std::size_t kBuckets = 24;  // the last bound: 512 ns << 22 = ~2.1 s
  static constexpr uint32_t kWeight = 16;      // one sample, before halving

  static std::size_t bucket_of(uint64_t ns) noexcept {
    std::size_t i = 0;
    while (i + 1 < kBuckets && ns >= (kFirstBoundNs << i)) ++i;
    return i;
  }
  // A spin that covers bucket i: its bound and half again (gaps jitter across a bound).
  static uint64_t cover(std::size_t i) noexcept { return (kFirstBoundNs << i) + (kFirstBoundNs << i) / 2; }

  void add_gap(uint64_t ns) noexcept {
    counts_[bucket_of(ns)] += kWeight;
    if (++samples_ % kHalveEvery == 0)
      for (uint32_t& c : counts_) c /= 2;
    recompute();
  }

  void recompute() noexcept {
    uint64_t total = 0;
    for (uint32_t c : counts_) total += c;
    if (total == 0) {
      budget_ns_ = 0;
      return;
    }
    const uint64_t ceiling = ceiling_ns();
    uint64_t below = 0;           // weight of the gaps in buckets up to i
    uint64_t within_ceiling = 0;  // weight of the gaps a spin of the ceiling covers
    uint64_t wanted = 0;          // the spin that covers 90 %
    for (std::size_t i = 0; i < kBuckets; ++i) {
      below += counts_[i];
      bool last = i + 1 == kBuckets;
      if (!last && (kFirstBoundNs << i) <= ceiling) within_ceiling = below;
      if (wanted == 0 && below * 10 >= total * 9) wanted = last ? UINT64_MAX : cover(i);
    }
    if (wanted <= ceiling) {
      budget_ns_ = wanted;
    } else {
      budget_ns_ = within_ceiling * 2 >= total ? ceiling : 0;  // mostly covered, or mostly missed
    }
    if (budget_ns_ < kFloorNs) budget_ns_ = 0;
  }

  const uint64_t configured_max_ns_;
  std::array<uint32_t, kBuckets> counts_{};
  unsigned samples_ = 0;
  uint64_t budget_ns_ = 0;
  uint64_t wakeup_ns_ = 0;
  uint64_t window_end_ns_ = 0;
  uint64_t wasted_ns_ = 0;
  uint64_t unsettled_ns_ = 0;  // the last spin that missed, until what ended the sleep tells whether it was idle
};

}  // namespace jrdma
