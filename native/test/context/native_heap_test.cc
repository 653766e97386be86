// NativeHeap (context/native_heap.h): when the process gives freed native memory back. Each test
// runs in a process of its own (gtest_discover_tests), so the counts start at zero.
#include "context/native_heap.h"

#include <gtest/gtest.h>

namespace jrdma {
namespace {

TEST(NativeHeap, TrimsOnceEnoughChannelsWentAndAtMostOncePerInterval) {
  // Hours ahead of any tick a real loop of this process may have taken.
  const auto start = NativeHeap::Clock::now() + std::chrono::hours(1);
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
  const auto start = NativeHeap::Clock::now() + std::chrono::hours(1);
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
