// NativeHeap (context/native_heap.h): when the process gives freed native memory back. Its state is
// the process's: under ThreadSanitizer every test runs in one process, so each starts from quiet_start().
#include "context/native_heap.h"

#include <gtest/gtest.h>

namespace jrdma {
namespace {

// A time hours past any an earlier test of this process used, with no trim due at it: a count an
// earlier test left is trimmed an hour before, and the settling trim that causes three seconds later.
NativeHeap::Clock::time_point quiet_start() {
  static int tests = 0;
  const auto start = NativeHeap::Clock::now() + std::chrono::hours(10 * ++tests);
  NativeHeap::trim_if_channels_went(start - std::chrono::hours(1));
  NativeHeap::trim_if_channels_went(start - std::chrono::hours(1) + NativeHeap::kSettleDelay);
  return start;
}

TEST(NativeHeap, TrimsOnceEnoughChannelsWentAndAtMostOncePerInterval) {
  const auto start = quiet_start();
  for (uint64_t i = 1; i < NativeHeap::kChannelsBetweenTrims; ++i) NativeHeap::channel_gone();
  EXPECT_FALSE(NativeHeap::trim_if_channels_went(start)) << "one channel short";
  NativeHeap::channel_gone();
  EXPECT_TRUE(NativeHeap::trim_if_channels_went(start));
  EXPECT_FALSE(NativeHeap::trim_if_channels_went(start)) << "the count starts again";
  for (uint64_t i = 0; i < NativeHeap::kChannelsBetweenTrims; ++i) NativeHeap::channel_gone();
  EXPECT_FALSE(NativeHeap::trim_if_channels_went(start + NativeHeap::kTrimInterval / 2)) << "within the interval";
  EXPECT_TRUE(NativeHeap::trim_if_channels_went(start + NativeHeap::kTrimInterval));
}

TEST(NativeHeap, TrimsOnceMoreWhenABurstSettled) {
  const auto start = quiet_start();
  EXPECT_FALSE(NativeHeap::trim_if_channels_went(start)) << "no channel went yet";
  for (uint64_t i = 0; i < NativeHeap::kChannelsBetweenTrims; ++i) NativeHeap::channel_gone();
  ASSERT_TRUE(NativeHeap::trim_if_channels_went(start));
  NativeHeap::channel_gone();  // one of the last channels: too few for a trim of their own
  const auto settled = start + NativeHeap::kSettleDelay;
  EXPECT_FALSE(NativeHeap::trim_if_channels_went(settled - std::chrono::milliseconds(1))) << "not settled yet";
  EXPECT_TRUE(NativeHeap::trim_if_channels_went(settled)) << "what went after the burst's last trim";
  EXPECT_FALSE(NativeHeap::trim_if_channels_went(settled + std::chrono::hours(1))) << "once per burst";
}

}  // namespace
}  // namespace jrdma
