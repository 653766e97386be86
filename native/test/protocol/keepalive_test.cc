// Keepalive (protocol/keepalive.h) on a made-up clock: when the peer counts as silent, when we owe
// it a message, and that a stall of our own is not the peer's silence.
#include "protocol/keepalive.h"

#include <gtest/gtest.h>

namespace jrdma {
namespace {

using Clock = Keepalive::Clock;
using std::chrono::milliseconds;

const Clock::time_point t0 = Clock::time_point{} + std::chrono::hours(1);

// Ticks every 100 ms from `from` to `to` (exclusive); the verdict of the last.
Keepalive::Verdict tick_until(Keepalive& k, Clock::time_point from, Clock::time_point to, uint32_t peer_bound) {
  Keepalive::Verdict v;
  for (Clock::time_point t = from; t < to; t += milliseconds(100)) v = k.tick(t, peer_bound);
  return v;
}

TEST(Keepalive, APeerSilentForTheBoundIsReportedWithHowLongItWasSilent) {
  Keepalive k(3000);
  k.start(t0);
  EXPECT_EQ(tick_until(k, t0, t0 + milliseconds(3000), 0).silent_ms, 0) << "2.9 s of silence is within the bound";
  Keepalive::Verdict v = k.tick(t0 + milliseconds(3000), 0);
  EXPECT_EQ(v.silent_ms, 3000);
}

TEST(Keepalive, AMessageFromThePeerRestartsItsSilence) {
  Keepalive k(3000);
  k.start(t0);
  tick_until(k, t0, t0 + milliseconds(2000), 0);
  k.heard();
  EXPECT_EQ(tick_until(k, t0 + milliseconds(2000), t0 + milliseconds(5000), 0).silent_ms, 0);
  EXPECT_EQ(k.tick(t0 + milliseconds(5000), 0).silent_ms, 3000) << "silent since the tick that saw the message";
}

TEST(Keepalive, AStallOfOurOwnIsNotThePeersSilence) {
  Keepalive k(3000);
  k.start(t0);
  k.tick(t0, 0);
  // No tick for 10 s (a GC pause): the peer's messages may wait unpolled, so its silence starts over.
  EXPECT_EQ(k.tick(t0 + milliseconds(10000), 0).silent_ms, 0);
  EXPECT_EQ(tick_until(k, t0 + milliseconds(10100), t0 + milliseconds(13000), 0).silent_ms, 0);
  EXPECT_EQ(k.tick(t0 + milliseconds(13000), 0).silent_ms, 3000);
}

TEST(Keepalive, WithoutABoundThePeerIsNeverSilent) {
  Keepalive k(0);
  k.start(t0);
  EXPECT_EQ(tick_until(k, t0, t0 + milliseconds(60000), 0).silent_ms, 0);
}

TEST(Keepalive, AWatchingPeerIsOwedAMessageEveryThirdOfItsBound) {
  Keepalive k(0);
  k.start(t0);
  EXPECT_FALSE(k.tick(t0 + milliseconds(900), 3000).owe_message);
  EXPECT_TRUE(k.tick(t0 + milliseconds(1000), 3000).owe_message);
  k.message_sent(t0 + milliseconds(1000));
  EXPECT_FALSE(k.tick(t0 + milliseconds(1900), 3000).owe_message) << "the cadence restarts at the message";
  EXPECT_TRUE(k.tick(t0 + milliseconds(2000), 3000).owe_message);
}

TEST(Keepalive, AnyMessageOfOursServesAndAPeerThatDoesNotWatchIsOwedNothing) {
  Keepalive k(0);
  k.start(t0);
  k.tick(t0 + milliseconds(500), 3000);
  k.sent();
  EXPECT_FALSE(k.tick(t0 + milliseconds(1400), 3000).owe_message) << "a send at 0.9 s: next due at 1.5 s";
  EXPECT_FALSE(k.tick(t0 + milliseconds(60000), 0).owe_message);
}

}  // namespace
}  // namespace jrdma
