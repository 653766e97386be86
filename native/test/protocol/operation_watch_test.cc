// Operation timeouts (protocol/operation_watch.h) on a made-up clock: the channel's bound on a
// stall, and each operation's deadline, met when it is reported and dropped when it is never posted.
#include "protocol/operation_watch.h"

#include <gtest/gtest.h>

namespace jrdma {
namespace {

using Clock = OperationWatch::Clock;
using std::chrono::milliseconds;

const Clock::time_point t0 = Clock::time_point{} + std::chrono::hours(1);

TEST(OperationWatch, OperationsThatWaitWithoutProgressForTheBoundStall) {
  OperationWatch w(1000);
  w.start(t0);
  EXPECT_EQ(w.stalled_ms(t0 + milliseconds(900), true), 0);
  EXPECT_EQ(w.stalled_ms(t0 + milliseconds(1000), true), 1000);
}

TEST(OperationWatch, AReportIsProgressAndNothingWaitingIsNoStall) {
  OperationWatch w(1000);
  w.start(t0);
  w.reported_through(1);
  EXPECT_EQ(w.stalled_ms(t0 + milliseconds(800), true), 0) << "progress at this tick";
  EXPECT_EQ(w.stalled_ms(t0 + milliseconds(1700), true), 0) << "900 ms since the progress";
  EXPECT_EQ(w.stalled_ms(t0 + milliseconds(1800), true), 1000);
  EXPECT_EQ(w.stalled_ms(t0 + milliseconds(5000), false), 0) << "nothing waits: nothing stalls";
  EXPECT_EQ(w.stalled_ms(t0 + milliseconds(5900), true), 0) << "the wait starts at the last idle tick";
}

TEST(OperationWatch, WithoutABoundNothingStalls) {
  OperationWatch w(0);
  w.start(t0);
  EXPECT_EQ(w.stalled_ms(t0 + std::chrono::hours(1), true), 0);
}

TEST(OperationWatch, AMissedDeadlineNamesTheOperationHowLongItWaitedAndItsDeadline) {
  OperationWatch w(0);
  w.expect(7, 3, 500, t0);
  EXPECT_EQ(w.missed(t0 + milliseconds(499)).kind, 0);
  OperationWatch::Miss miss = w.missed(t0 + milliseconds(600));
  EXPECT_EQ(miss.kind, 3);
  EXPECT_EQ(miss.waited_ms, 600);
  EXPECT_EQ(miss.deadline_ms, 500u);
}

TEST(OperationWatch, AReportedOperationMetItsDeadlineAndAnUnpostedOneHasNone) {
  OperationWatch w(0);
  w.expect(1, 1, 100, t0);
  w.expect(2, 1, 100, t0);
  w.expect(3, 5, 100, t0);
  w.reported_through(1);
  w.unposted_from(3);
  EXPECT_EQ(w.missed(t0 + milliseconds(200)).kind, 1) << "operation 2 is late";
  w.reported_through(2);
  EXPECT_EQ(w.missed(t0 + milliseconds(200)).kind, 0) << "1 and 2 reported, 3 never posted";
  w.expect(4, 5, 100, t0);
  w.clear();
  EXPECT_EQ(w.missed(t0 + milliseconds(200)).kind, 0) << "a closed channel watches nothing";
}

}  // namespace
}  // namespace jrdma
