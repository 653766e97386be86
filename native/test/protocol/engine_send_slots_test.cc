// A transport whose send queue holds fewer requests than the channel's depth (verbs keeps depth - 1
// so that the device's queue is depth slots: verbs_send_slots) gets no more than that in flight,
// and nothing stalls or is lost for it.
#include <gtest/gtest.h>

#include <vector>

#include "test/protocol/engine_pair.h"

namespace jrdma::test {
namespace {

EngineOptions with_send_slots(uint32_t depth, uint32_t send_slots) {
  EngineOptions o;
  o.depth = depth;
  o.send_slots = send_slots;
  o.eager = 256;
  o.graceful_close_ms = 50;
  return o;
}

void expect_all_done(const Side& s) {
  EXPECT_EQ(s.violation, "");
  EXPECT_FALSE(s.closed);
  for (const auto& [seq, op] : s.ops) EXPECT_EQ(op.state, ModelOp::kDone) << "seq " << seq;
}

TEST(ChannelEngineSendSlots, NoMoreSendsArePostedThanTheTransportHoldsThoughCreditsAllowMore) {
  EnginePair pair(with_send_slots(8, 3));
  std::vector<Submission> sends;
  for (int i = 0; i < 20; ++i) sends.push_back(pair.make(pair.a, OpKind::kSend, 32));
  pair.a.engine.submit(sends.data(), static_cast<int>(sends.size()));
  pair.a.engine.flush();
  EXPECT_EQ(pair.a.transport.pending_sends(), 3u);  // the peer's 7 usable credits would allow 7
  pair.settle();
  EXPECT_EQ(pair.b.data_received, 20u);
  expect_all_done(pair.a);
}

TEST(ChannelEngineSendSlots, RandomInterleavingsWithOneSendSlotFewerThanTheDepthDeliverEverything) {
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    uint32_t depth = seed % 2 == 0 ? 4 : 32;
    EnginePair pair(with_send_slots(depth, depth - 1), seed);
    for (int i = 0; i < 1500; ++i) pair.step();
    pair.settle();
    for (Side* s : {&pair.a, &pair.b}) expect_all_done(*s);
    EXPECT_EQ(pair.a.data_received, pair.b.data_sent);
    EXPECT_EQ(pair.b.data_received, pair.a.data_sent);
    EXPECT_EQ(pair.a.immediates_received, pair.b.immediates_sent);
  }
}

}  // namespace
}  // namespace jrdma::test
