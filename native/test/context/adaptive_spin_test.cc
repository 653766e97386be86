// The adaptive mode's spin budget (context/adaptive_spin.h): what it learns from gaps, sleeps and the
// price of a wake-up, and what it may waste.
#include "context/adaptive_spin.h"

#include <gtest/gtest.h>

namespace jrdma {
namespace {

constexpr uint64_t kUs = 1000;
constexpr uint64_t kMs = 1000 * kUs;
constexpr uint64_t kNow = 5 * 1000 * kMs;  // any monotonic time

// A context on a machine where a wake-up costs `price` (the process's measurement).
AdaptiveSpin learned(uint64_t price) {
  AdaptiveSpin spin(0);
  spin.sleep_returned_late(price);
  return spin;
}

TEST(AdaptiveSpin, StartsWithoutSpinning) { EXPECT_EQ(0u, learned(10 * kUs).budget_ns(kNow)); }

TEST(AdaptiveSpin, TheCeilingIsTenWakeUpsWorthOfSpinningWithinBounds) {
  EXPECT_EQ(AdaptiveSpin::kMinCeilingNs, learned(0).ceiling_ns());  // timers exact: as on hardware
  EXPECT_EQ(AdaptiveSpin::kMinCeilingNs, learned(3 * kUs).ceiling_ns());
  EXPECT_EQ(1500 * kUs, learned(150 * kUs).ceiling_ns());  // an emulated guest
  EXPECT_EQ(AdaptiveSpin::kMaxCeilingNs, learned(50 * kMs).ceiling_ns());
  AdaptiveSpin configured(250 * kUs);  // RdmaConfig.adaptiveSpinMicros set: it wins
  configured.sleep_returned_late(150 * kUs);
  EXPECT_EQ(250 * kUs, configured.ceiling_ns());
}

TEST(AdaptiveSpin, LaterSleepsRefineThePrice) {
  AdaptiveSpin spin = learned(100 * kUs);
  for (int i = 0; i < 40; ++i) spin.sleep_returned_late(200 * kUs);
  EXPECT_NEAR(200.0 * kUs, double(spin.wakeup_ns()), 2.0 * kUs);
  EXPECT_NEAR(2000.0 * kUs, double(spin.ceiling_ns()), 20.0 * kUs);
}

TEST(AdaptiveSpin, AGapWithinTheCeilingIsCoveredWithAMargin) {
  AdaptiveSpin spin = learned(10 * kUs);  // ceiling 100 us
  spin.woken_after(30 * kUs);
  EXPECT_GE(spin.budget_ns(kNow), 30 * kUs * 5 / 4);
  EXPECT_LE(spin.budget_ns(kNow), 30 * kUs * 2);
}

TEST(AdaptiveSpin, RoundTripsLongerThanTheOldFixedBudgetAreCaughtWhereSleepsAreDear) {
  // Emulated verbs on two vCPUs (docs/performance.md): a sleeping loop sees each reply ~145 us after
  // it ran out of work (its wake-up preempts the application thread); a spinning one sees it at ~20 us.
  // A fixed 100 us budget never spun; the learned ceiling (1.5 ms) covers the sleeping round trip, and
  // once spinning the budget follows the shorter gaps.
  AdaptiveSpin spin = learned(150 * kUs);
  spin.woken_after(145 * kUs);
  EXPECT_GE(spin.budget_ns(kNow), 145 * kUs);
  for (int i = 0; i < 200; ++i) spin.found(20 * kUs);
  EXPECT_GE(spin.budget_ns(kNow), 20 * kUs);
  EXPECT_LT(spin.budget_ns(kNow), 100 * kUs);
}

TEST(AdaptiveSpin, GapsBeyondTheCeilingGetNoSpin) {
  // Where a wake-up is cheap, a server with requests 500 us apart sleeps: spinning would buy a few
  // microseconds with a core.
  AdaptiveSpin spin = learned(5 * kUs);
  for (int i = 0; i < 10; ++i) spin.woken_after(500 * kUs);
  EXPECT_EQ(0u, spin.budget_ns(kNow));
  // The same server on a machine where a sleep costs 150 us spins for them.
  AdaptiveSpin dear = learned(150 * kUs);
  for (int i = 0; i < 10; ++i) dear.woken_after(500 * kUs);
  EXPECT_GE(dear.budget_ns(kNow), 500 * kUs);
}

TEST(AdaptiveSpin, MostlyShortGapsGetTheWholeCeilingAndMostlyLongOnesNone) {
  AdaptiveSpin spin = learned(10 * kUs);  // ceiling 100 us
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 3; ++j) spin.found(20 * kUs);
    spin.woken_after(5 * kMs);  // a pause between bursts: 25 %
  }
  EXPECT_EQ(spin.ceiling_ns(), spin.budget_ns(kNow));
  for (int i = 0; i < 30; ++i) spin.idle_for(100 * kMs);  // then idle ticks: the gaps are long now
  EXPECT_EQ(0u, spin.budget_ns(kNow));
}

TEST(AdaptiveSpin, ATimeoutShorterThanTheCeilingSaysNothing) {
  AdaptiveSpin spin = learned(10 * kUs);
  spin.woken_after(30 * kUs);
  uint64_t before = spin.budget_ns(kNow);
  for (int i = 0; i < 20; ++i) spin.idle_for(50 * kUs);  // e.g. Java's next timer: not a gap
  EXPECT_EQ(before, spin.budget_ns(kNow));
}

TEST(AdaptiveSpin, ItForgetsOldGaps) {
  AdaptiveSpin spin = learned(10 * kUs);
  for (int i = 0; i < 100; ++i) spin.found(60 * kUs);
  ASSERT_GE(spin.budget_ns(kNow), 60 * kUs);
  for (int i = 0; i < 100; ++i) spin.found(2 * kUs);
  EXPECT_GE(spin.budget_ns(kNow), 60 * kUs);  // a tenth of what it remembers is still the old gaps
  for (int i = 0; i < 100; ++i) spin.found(2 * kUs);
  EXPECT_LT(spin.budget_ns(kNow), 10 * kUs);
}

TEST(AdaptiveSpin, SpinsBeforeIdleSleepsTakeAtMostOnePercentOfACorePerSecond) {
  AdaptiveSpin spin = learned(150 * kUs);  // ceiling 1.5 ms
  spin.woken_after(1 * kMs);
  uint64_t budget = spin.budget_ns(kNow);
  ASSERT_GT(budget, 0u);
  uint64_t wasted = 0;
  uint64_t now = kNow;
  while (spin.budget_ns(now) > 0) {  // every spin misses and the sleep after it times out (1 ms: Java's timer)
    spin.missed(budget);
    spin.idle_for(1 * kMs);
    wasted += budget;
    now += 2 * kMs;
  }
  EXPECT_GE(wasted, AdaptiveSpin::kWindowNs / AdaptiveSpin::kWastedShare);
  EXPECT_LE(wasted, AdaptiveSpin::kWindowNs / AdaptiveSpin::kWastedShare + budget);
  EXPECT_EQ(budget, spin.budget_ns(now + AdaptiveSpin::kWindowNs));  // a new second: may spin again
}

TEST(AdaptiveSpin, ASpinALittleShortOfTheGapIsNoWaste) {
  // Busy traffic whose gaps now and then outlast the spin: each such sleep is ended by work, so the
  // spin keeps going (it was not spent on idleness) and the longer gap teaches a longer one.
  AdaptiveSpin spin = learned(150 * kUs);
  spin.woken_after(100 * kUs);
  uint64_t now = kNow;
  for (int i = 0; i < 1000; ++i, now += 200 * kUs) {
    ASSERT_GT(spin.budget_ns(now), 0u) << i;
    spin.missed(spin.budget_ns(now));
    spin.woken_after(400 * kUs);
  }
  EXPECT_GE(spin.budget_ns(now), 400 * kUs);
}

}  // namespace
}  // namespace jrdma
