// The adaptive mode's spin budget (context/adaptive_spin.h): what it learns from spins and sleeps.
#include "context/adaptive_spin.h"

#include <gtest/gtest.h>

namespace jrdma {
namespace {

constexpr uint64_t kMax = 100000;  // 100 us

TEST(AdaptiveSpin, StartsWithoutSpinning) { EXPECT_EQ(0u, AdaptiveSpin(kMax).budget_ns()); }

TEST(AdaptiveSpin, ASleepEndedSoonByACompletionTeachesTwiceItsLength) {
  AdaptiveSpin spin(kMax);
  spin.woken_after(30000);
  EXPECT_EQ(60000u, spin.budget_ns());
  spin.woken_after(10000);  // never shrinks from a sleep
  EXPECT_EQ(60000u, spin.budget_ns());
}

TEST(AdaptiveSpin, NeverAboveTheMaximum) {
  AdaptiveSpin spin(kMax);
  spin.woken_after(80000);
  EXPECT_EQ(kMax, spin.budget_ns());
  spin.found(90000);
  EXPECT_EQ(kMax, spin.budget_ns());
}

TEST(AdaptiveSpin, ALongSleepTeachesNothing) {
  AdaptiveSpin spin(kMax);
  spin.woken_after(kMax + 1);  // the peer took longer than any allowed spin
  EXPECT_EQ(0u, spin.budget_ns());
}

TEST(AdaptiveSpin, MissesHalveTheBudgetDownToNone) {
  AdaptiveSpin spin(kMax);
  spin.woken_after(40000);
  ASSERT_EQ(80000u, spin.budget_ns());
  int misses = 0;
  while (spin.budget_ns() > 0) {
    spin.missed();
    ++misses;
  }
  EXPECT_EQ(8, misses);  // 80 us -> 40 -> 20 -> 10 -> 5 -> 2.5 -> 1.25 -> 0.625 -> 0 (below 0.5 us)
  spin.missed();
  EXPECT_EQ(0u, spin.budget_ns());
}

TEST(AdaptiveSpin, AFindGrowsTheBudgetToTwiceTheWait) {
  AdaptiveSpin spin(kMax);
  spin.woken_after(10000);
  spin.missed();  // 10 us
  spin.found(8000);
  EXPECT_EQ(16000u, spin.budget_ns());
  spin.found(1000);  // a quick find keeps what was learned
  EXPECT_EQ(16000u, spin.budget_ns());
}

}  // namespace
}  // namespace jrdma
