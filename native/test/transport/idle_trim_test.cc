// When a stream channel gives its buffers' pages back (transports/stream/idle_trim.h): after a second of
// ticks without traffic at first; later only after longer when traffic kept coming back soon after a trim
// (thousands of streaming channels, each with its turn about once a second); early again after long idleness.
#include "transports/stream/idle_trim.h"

#include <gtest/gtest.h>

namespace jrdma::tcp {
namespace {

// Ticks until tick() says "trim" with nothing moving; -1 when it does not within `most`.
int ticks_until_trim(IdleTrim& trim, uint64_t moved, int most = 1000) {
  for (int tick = 1; tick <= most; ++tick) {
    if (trim.tick(moved)) return tick;
  }
  return -1;
}

TEST(IdleTrim, AChannelIdleForASecondOfTicksTrimsOnceAndTrafficStartsTheCountAgain) {
  IdleTrim trim;
  EXPECT_FALSE(trim.tick(5)) << "traffic";
  EXPECT_EQ(IdleTrim::kTicks, trim.limit()) << "the first traffic is no trim to regret";
  EXPECT_EQ(IdleTrim::kTicks, ticks_until_trim(trim, 5));
  trim.trimmed();
  EXPECT_EQ(-1, ticks_until_trim(trim, 5, IdleTrim::kMaxTicks)) << "trimmed once";
  EXPECT_FALSE(trim.tick(6));
  EXPECT_EQ(IdleTrim::kTicks, trim.limit()) << "traffic after long idleness: no regret";
  EXPECT_FALSE(trim.tick(7));
  EXPECT_EQ(IdleTrim::kTicks, ticks_until_trim(trim, 7)) << "each tick with traffic starts the count again";
}

TEST(IdleTrim, TrafficSoonAfterATrimDoublesTheLimitUpToTheLongestAndLongIdlenessResetsIt) {
  IdleTrim trim;
  uint64_t moved = 1;
  int expected = IdleTrim::kTicks;
  for (int round = 0; round < 8; ++round) {
    EXPECT_FALSE(trim.tick(moved));
    EXPECT_EQ(expected, ticks_until_trim(trim, moved)) << "round " << round;
    trim.trimmed();
    ++moved;  // the next message comes a tick after the trim: the trim cost a fault per page for nothing
    expected = std::min(expected * 2, IdleTrim::kMaxTicks);
  }
  EXPECT_EQ(IdleTrim::kMaxTicks, trim.limit());
  EXPECT_FALSE(trim.tick(moved));
  EXPECT_EQ(IdleTrim::kMaxTicks, ticks_until_trim(trim, moved));
  trim.trimmed();
  EXPECT_EQ(-1, ticks_until_trim(trim, moved, IdleTrim::kMaxTicks)) << "idle long after the trim";
  EXPECT_EQ(IdleTrim::kTicks, trim.limit()) << "so the next trim comes early again";
  EXPECT_FALSE(trim.tick(moved + 1));
  EXPECT_EQ(IdleTrim::kTicks, trim.limit());
}

}  // namespace
}  // namespace jrdma::tcp
