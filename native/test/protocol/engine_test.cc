// The channel engine over the in-memory transport: credits, ordering and exactly-once reporting
// under random interleavings of posting, execution, completion and release (many seeds), close
// with operations in flight, and hostile input from the peer.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "test/protocol/engine_pair.h"
#include "wire/message_header.h"

namespace jrdma::test {
namespace {

EngineOptions small(uint32_t depth, uint32_t eager = 256) {
  EngineOptions o;
  o.depth = depth;
  o.eager = eager;
  o.graceful_close_ms = 50;
  return o;
}

void expect_all_reported(const Side& s) {
  for (const auto& [seq, op] : s.ops) {
    EXPECT_NE(op.state, ModelOp::kPending) << "operation " << seq << " (" << op_verb(op.kind) << ") never reported";
  }
}

// 600 random steps with `close` called on one side at a random step among the first 400, then
// everything settles: both sides must end closed with every operation reported, no promise broken.
template <typename Close>
void close_in_flight(EnginePair& pair, Close&& close) {
  int close_at = 1 + static_cast<int>(pair.rng() % 400);
  for (int i = 0; i < 600; ++i) {
    if (i == close_at) close();
    pair.step();
  }
  pair.settle();
  for (Side* s : {&pair.a, &pair.b}) {
    ASSERT_EQ(s->violation, "");
    EXPECT_TRUE(s->closed);
    expect_all_reported(*s);
  }
}

TEST(ChannelEngine, RandomInterleavingsDeliverEverythingInOrderExactlyOnceWithoutOverdrawingCredits) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    EnginePair pair(small(seed % 3 == 0 ? 4 : seed % 3 == 1 ? 8 : 32), seed);
    for (int i = 0; i < 1500; ++i) pair.step();
    pair.settle();
    for (Side* s : {&pair.a, &pair.b}) {
      ASSERT_EQ(s->violation, "");
      EXPECT_FALSE(s->closed);
      expect_all_reported(*s);
      for (const auto& [seq, op] : s->ops) EXPECT_EQ(op.state, ModelOp::kDone) << "seq " << seq;
    }
    EXPECT_EQ(pair.a.data_received, pair.b.data_sent);
    EXPECT_EQ(pair.b.data_received, pair.a.data_sent);
    EXPECT_EQ(pair.a.immediates_received, pair.b.immediates_sent);
    // Every fetch-and-add (delta 1) saw a different previous value, and the counters add up.
    for (Side* s : {&pair.a, &pair.b}) {
      Side& p = pair.peer_of(*s);
      std::set<int64_t> distinct(s->fetch_results.begin(), s->fetch_results.end());
      EXPECT_EQ(distinct.size(), s->fetch_results.size());
      uint64_t counter;
      std::memcpy(&counter, p.exposed.data(), 8);
      EXPECT_EQ(counter, s->fetch_results.size());
    }
  }
}

TEST(ChannelEngine, AReceiverThatHoldsEveryMessageSlowsTheSenderDownInsteadOfOverrunningIt) {
  EnginePair pair(small(4));
  std::vector<Submission> sends;
  for (int i = 0; i < 20; ++i) sends.push_back(pair.make(pair.a, OpKind::kSend, 32));
  pair.a.engine.submit(sends.data(), static_cast<int>(sends.size()));
  for (int round = 0; round < 50; ++round) {
    while (pair.a.transport.pending_sends() > 0) ASSERT_EQ(pair.a.transport.execute_one(), "");
    while (pair.a.transport.deliver_one(pair.a.engine)) {
    }
    while (pair.b.transport.deliver_one(pair.b.engine)) {
    }
    pair.a.engine.flush();
    pair.process(pair.a, pair.b);
    pair.process(pair.b, pair.a);
  }
  // 4 buffers, one credit kept in reserve: 3 messages, then the sender waits.
  EXPECT_EQ(pair.b.data_received, 3u);
  EXPECT_EQ(pair.a.pending(), 17u);
  pair.settle();  // releases everything: the rest flows
  EXPECT_EQ(pair.b.data_received, 20u);
  expect_all_reported(pair.a);
  EXPECT_EQ(pair.a.violation, "");
}

TEST(ChannelEngine, GracefulCloseFailsQueuedOperationsCompletesPostedOnesAndEndsWithClosed) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    EnginePair pair(small(8), seed);
    Side& closer = seed % 2 == 0 ? pair.a : pair.b;
    close_in_flight(pair, [&] { closer.engine.close(); });
    EXPECT_EQ(closer.closed_cause, static_cast<int>(ClosedCause::kLocal));
    // A graceful close lets what was posted finish: no operation of the closing side got an
    // error completion (the queued ones failed unposted, with no status).
    for (const auto& [seq, op] : closer.ops) EXPECT_EQ(op.status, kStatusSuccess) << seq;
  }
}

TEST(ChannelEngine, AbortWithOperationsInFlightReportsEachOnceAndLateCompletionsAreIgnored) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    EnginePair pair(small(8), seed);
    close_in_flight(pair, [&] { pair.a.engine.abort(ClosedCause::kLocal); });
  }
}

TEST(ChannelEngine, GracefulCloseIsBoundedWhenTheDeviceNeverCompletes) {
  EnginePair pair(small(8));
  Submission send = pair.make(pair.a, OpKind::kSend, 16);
  pair.a.engine.submit(&send, 1);
  pair.a.engine.close();
  pair.process(pair.a, pair.b);
  EXPECT_FALSE(pair.a.closed);  // waits for the posted send
  pair.a.engine.tick(std::chrono::steady_clock::now() + std::chrono::seconds(1));
  pair.process(pair.a, pair.b);
  EXPECT_TRUE(pair.a.closed);
  EXPECT_EQ(pair.a.closed_cause, static_cast<int>(ClosedCause::kGracefulTimeout));
  expect_all_reported(pair.a);
}

TEST(ChannelEngine, AnErrorCompletionFailsThatOperationSucceedsEarlierOnesAndClosesTheChannel) {
  EnginePair pair(small(32));
  std::vector<Submission> writes;
  for (int i = 0; i < 6; ++i) writes.push_back(pair.make(pair.a, OpKind::kWrite, 16));
  pair.a.engine.submit(writes.data(), 6);  // one chain: only the last is signaled (interval 8)
  for (int i = 0; i < 3; ++i) ASSERT_EQ(pair.a.transport.execute_one(), "");
  ASSERT_EQ(pair.a.transport.execute_one(10 /* REM_ACCESS_ERR */), "");
  pair.a.transport.flush_all();
  while (pair.a.transport.deliver_one(pair.a.engine)) {
  }
  pair.process(pair.a, pair.b);
  for (uint64_t seq = 0; seq < 3; ++seq) EXPECT_EQ(pair.a.ops[seq].state, ModelOp::kDone) << seq;
  EXPECT_EQ(pair.a.ops[3].state, ModelOp::kFailed);
  EXPECT_EQ(pair.a.ops[3].status, 10);
  EXPECT_TRUE(pair.a.closed);
  EXPECT_EQ(pair.a.closed_cause, static_cast<int>(ClosedCause::kOperationFailed));
  EXPECT_EQ(pair.a.closed_code, 10);
  expect_all_reported(pair.a);
  EXPECT_EQ(pair.a.violation, "");
}

TEST(ChannelEngine, AFailedPostClosesTheChannelAndReportsEveryOperation) {
  EnginePair pair(small(8));
  pair.a.transport.fail_next_post = true;
  Submission send = pair.make(pair.a, OpKind::kSend, 16);
  pair.a.engine.submit(&send, 1);
  pair.process(pair.a, pair.b);
  EXPECT_TRUE(pair.a.closed);
  EXPECT_EQ(pair.a.closed_cause, static_cast<int>(ClosedCause::kOperationFailed));
  expect_all_reported(pair.a);
}

TEST(ChannelEngine, OperationsBeforeOpenAndAfterCloseAreReportedUnposted) {
  EngineOptions o = small(8);
  Side lone(9, o);
  EnginePair pair(o);
  Submission early = pair.make(lone, OpKind::kWrite, 8);
  lone.engine.submit(&early, 1);
  pair.process(lone, pair.a);
  EXPECT_EQ(lone.ops[0].state, ModelOp::kFailed);
  pair.a.engine.close();
  pair.process(pair.a, pair.b);
  ASSERT_TRUE(pair.a.closed);
  Submission late = pair.make(pair.a, OpKind::kSend, 8);
  pair.a.engine.submit(&late, 1);
  // Closed: the engine says nothing more; Java fails what it submits after kChannelClosed itself.
  EXPECT_TRUE(pair.a.sink.records.empty());
}

TEST(ChannelEngine, ReleasingASlotTheApplicationDoesNotHoldIsRefused) {
  EnginePair pair(small(8));
  Submission r = EnginePair::release(3);
  EXPECT_THROW(pair.a.engine.submit(&r, 1), RdmaError);
  Submission bad{};
  bad.kind = 99;
  EXPECT_THROW(pair.a.engine.submit(&bad, 1), RdmaError);
  EXPECT_FALSE(pair.a.engine.closed());
  // The submissions before a bad one stand, and are posted.
  Submission batch[2] = {pair.make(pair.a, OpKind::kWrite, 8), bad};
  EXPECT_THROW(pair.a.engine.submit(batch, 2), RdmaError);
  EXPECT_EQ(pair.a.transport.pending_sends(), 1u);
  pair.settle();
  EXPECT_EQ(pair.a.ops[0].state, ModelOp::kDone);
}

// ---- hostile peer -----------------------------------------------------------------------------

// Writes raw bytes into b's next posted receive buffer as if the peer had sent them.
void inject(EnginePair& pair, const uint8_t* bytes, uint32_t length) {
  uint32_t slot = pair.b.transport.first_posted_receive();
  pair.b.transport.take_first_receive();
  std::memcpy(pair.b.transport.ring_slot(slot), bytes, length);
  pair.b.transport.push_completion({true, slot, kStatusSuccess, length});
  pair.b.transport.deliver_one(pair.b.engine);
  pair.process(pair.b, pair.a);
}

uint32_t inject_header(EnginePair& pair, wire::MessageHeader h, uint32_t payload) {
  uint8_t bytes[256] = {};
  wire::encode_header(h, bytes);
  inject(pair, bytes, static_cast<uint32_t>(wire::kHeaderSize) + payload);
  return static_cast<uint32_t>(pair.b.closed_code);
}

TEST(ChannelEngine, MalformedMessagesCloseOnlyThatChannelWithTheReason) {
  struct Case {
    const char* name;
    wire::MessageHeader header;
    uint32_t payload;
    int expected;
  } cases[] = {
      {"length above the buffer",
       {wire::MessageType::kData, 0, 0, 100000, 0},
       16,
       static_cast<int>(wire::DecodeStatus::kTooLong)},
      {"length not what arrived",
       {wire::MessageType::kData, 0, 0, 20, 0},
       16,
       static_cast<int>(wire::DecodeStatus::kLengthMismatch)},
      {"unknown type",
       {static_cast<wire::MessageType>(10), 0, 0, 0, 0},
       0,
       static_cast<int>(wire::DecodeStatus::kUnknownType)},
      {"reserved flags",
       {wire::MessageType::kData, 4, 0, 0, 0},
       0,
       static_cast<int>(wire::DecodeStatus::kReservedFlags)},
      {"credits above the peer's depth",
       {wire::MessageType::kCredit, 0, 9, 0, 0},
       0,
       static_cast<int>(wire::DecodeStatus::kCreditsTooMany)},
      {"message id skipped",
       {wire::MessageType::kData, 0, 0, 0, 5},
       0,
       static_cast<int>(ProtocolViolation::kMessageOutOfOrder)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EnginePair pair(small(8));
    EXPECT_EQ(inject_header(pair, c.header, c.payload), static_cast<uint32_t>(c.expected));
    EXPECT_TRUE(pair.b.closed);
    EXPECT_EQ(pair.b.closed_cause, static_cast<int>(ClosedCause::kProtocolError));
    EXPECT_FALSE(pair.a.engine.closed());  // the other channel end is not affected by b's parse
  }
}

TEST(ChannelEngine, CreditsReturnedInTotalBeyondWhatThePeerCanOweAreAProtocolError) {
  EnginePair pair(small(8));
  // The peer (a) announced 8 buffers; b starts with 8 credits. Returning 4 more than b ever used
  // is each time within the per-message bound, but not in total.
  uint32_t code = inject_header(pair, {wire::MessageType::kCredit, 0, 4, 0, 0}, 0);
  EXPECT_EQ(code, static_cast<uint32_t>(ProtocolViolation::kCreditOverflow));
  EXPECT_TRUE(pair.b.closed);
}

TEST(ChannelEngine, AReceiveCompletionForASlotNotPostedIsAProtocolError) {
  EnginePair pair(small(8));
  pair.b.transport.push_completion({true, 7000, kStatusSuccess, 16});
  pair.b.transport.deliver_one(pair.b.engine);
  pair.process(pair.b, pair.a);
  EXPECT_TRUE(pair.b.closed);
  EXPECT_EQ(pair.b.closed_code, static_cast<int>(ProtocolViolation::kUnexpectedReceive));
}

TEST(ChannelEngine, ExplicitCreditMessagesReturnCreditsAndNeverPingPong) {
  EnginePair pair(small(8));
  // a sends 40 messages, b never sends data: all credits go back in CREDIT messages.
  for (int i = 0; i < 40; ++i) {
    Submission s = pair.make(pair.a, OpKind::kSend, 8);
    pair.a.engine.submit(&s, 1);
    pair.settle();
  }
  EXPECT_EQ(pair.b.data_received, 40u);
  expect_all_reported(pair.a);
  // Settled means quiet: no credit message answers a credit message forever.
  EXPECT_EQ(pair.a.transport.pending_sends() + pair.b.transport.pending_sends(), 0u);
  EXPECT_EQ(pair.a.violation + pair.b.violation, "");
}

TEST(ChannelEngine, KeepaliveHoldsAnIdleLiveChannelOpenAndClosesOnASilentPeer) {
  EngineOptions options = small(8);
  options.keepalive_ms = 1200;
  EnginePair pair(options);
  auto t0 = std::chrono::steady_clock::now();
  auto at = [&](int ms) { return t0 + std::chrono::milliseconds(ms); };
  for (int ms = 100; ms <= 3000; ms += 100) {  // idle and alive: each side sends every 400 ms
    pair.a.engine.tick(at(ms));
    pair.b.engine.tick(at(ms));
    pair.settle();
  }
  EXPECT_FALSE(pair.a.closed);
  EXPECT_FALSE(pair.b.closed);
  EXPECT_TRUE(pair.a.violation.empty()) << pair.a.violation;
  // a stops (a stopped process): its loop runs no more, while its device still takes b's messages.
  int closed_at = 0;
  for (int ms = 3100; ms <= 6000 && !pair.b.closed; ms += 100) {
    pair.b.engine.tick(at(ms));
    while (pair.b.transport.pending_sends() > 0) pair.b.transport.execute_one();
    while (pair.b.transport.deliver_one(pair.b.engine)) {
    }
    pair.process(pair.b, pair.a);
    if (pair.b.closed) closed_at = ms;
  }
  ASSERT_TRUE(pair.b.closed);
  EXPECT_EQ(static_cast<int>(ClosedCause::kPeerSilent), pair.b.closed_cause);
  // a's last message came at most 400 ms before it stopped; b gives up 1200 ms after it (100 ms ticks).
  EXPECT_GE(closed_at, 3000 + 1200 - 400);
  EXPECT_LE(closed_at, 3000 + 1200 + 100);
  expect_all_reported(pair.b);
}

TEST(ChannelEngine, ASideThatDoesNotWatchIsSentNoKeepalives) {
  EngineOptions options = small(8);  // keepalive_ms 0: nobody watches, nothing is sent
  EnginePair pair(options);
  auto t0 = std::chrono::steady_clock::now();
  for (int ms = 100; ms <= 5000; ms += 100) {
    pair.a.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.b.engine.tick(t0 + std::chrono::milliseconds(ms));
    EXPECT_EQ(0u, pair.a.transport.pending_sends());
    EXPECT_EQ(0u, pair.b.transport.pending_sends());
  }
  EXPECT_FALSE(pair.a.closed);
  EXPECT_FALSE(pair.b.closed);
}

// a submits `sends`; b's application holds every message it gets, so b returns no credits and a's
// later sends wait for them.
void submit_without_credits_back(EnginePair& pair, std::vector<Submission>& sends) {
  pair.a.engine.submit(sends.data(), static_cast<int>(sends.size()));
  for (int round = 0; round < 10; ++round) {
    while (pair.a.transport.pending_sends() > 0) pair.a.transport.execute_one();
    while (pair.a.transport.deliver_one(pair.a.engine)) {
    }
    while (pair.b.transport.deliver_one(pair.b.engine)) {
    }
  }
  pair.process(pair.a, pair.b);
}

// Ticks a every 100 ms after t0 until it closes (at most 3 s); the tick that closed it, 0 if none.
int tick_until_closed(EnginePair& pair, std::chrono::steady_clock::time_point t0) {
  for (int ms = 100; ms <= 3000; ms += 100) {
    pair.a.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.process(pair.a, pair.b);
    if (pair.a.closed) return ms;
  }
  return 0;
}

TEST(ChannelEngine, OperationsWithoutProgressForTheBoundFailEachOnceWithTheTimeout) {
  EngineOptions options = small(4);
  options.operation_timeout_ms = 1000;
  EnginePair pair(options);
  auto t0 = std::chrono::steady_clock::now();
  // b's application holds every message: b returns no credits, a's later sends wait for them.
  std::vector<Submission> sends;
  for (int i = 0; i < 8; ++i) sends.push_back(pair.make(pair.a, OpKind::kSend, 16));
  submit_without_credits_back(pair, sends);
  ASSERT_GT(pair.a.pending(), 0u) << "some sends wait for credits";
  int closed_at = tick_until_closed(pair, t0);
  ASSERT_TRUE(pair.a.closed);
  EXPECT_EQ(static_cast<int>(ClosedCause::kOperationTimeout), pair.a.closed_cause);
  EXPECT_GE(closed_at, 1000);
  EXPECT_LE(closed_at, 1200);
  expect_all_reported(pair.a);
}

TEST(ChannelEngine, OperationsThatKeepCompletingNeverTimeOut) {
  EngineOptions options = small(4);
  options.operation_timeout_ms = 1000;
  EnginePair pair(options);
  auto t0 = std::chrono::steady_clock::now();
  for (int ms = 100; ms <= 5000; ms += 100) {  // one send per tick, each completes
    Submission send = pair.make(pair.a, OpKind::kSend, 16);
    pair.a.engine.submit(&send, 1);
    pair.a.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.b.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.settle();
  }
  EXPECT_FALSE(pair.a.closed);
  EXPECT_EQ(0u, pair.a.pending());
  EXPECT_TRUE(pair.a.violation.empty()) << pair.a.violation;
}

// Sends wait behind a receiver that returns no credits; one of them carries a deadline.
TEST(ChannelEngine, AnOperationPastItsOwnDeadlineClosesTheChannelWithItsKindAndWait) {
  EngineOptions options = small(4);
  options.operation_timeout_ms = 0;  // no channel-wide bound: only the operation's own deadline
  EnginePair pair(options);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Submission> sends;
  for (int i = 0; i < 8; ++i) sends.push_back(pair.make(pair.a, OpKind::kSend, 16));
  sends[6].deadline_ms = 300;
  submit_without_credits_back(pair, sends);
  ASSERT_GT(pair.a.pending(), 0u) << "some sends wait for credits";
  int closed_at = tick_until_closed(pair, t0);
  ASSERT_TRUE(pair.a.closed);
  EXPECT_EQ(static_cast<int>(ClosedCause::kOperationTimeout), pair.a.closed_cause);
  EXPECT_EQ(static_cast<int>(OpKind::kSend), pair.a.closed_code);
  EXPECT_GE(closed_at, 300);
  EXPECT_LE(closed_at, 400);
  EXPECT_GE(pair.a.closed_detail, 300);
  expect_all_reported(pair.a);
}

TEST(ChannelEngine, OperationsReportedBeforeTheirDeadlinesNeverCloseTheChannel) {
  EngineOptions options = small(4);
  EnginePair pair(options);
  auto t0 = std::chrono::steady_clock::now();
  for (int ms = 100; ms <= 3000; ms += 100) {  // each done within its tick, deadline 150 ms
    Submission ops[2] = {pair.make(pair.a, OpKind::kSend, 16), pair.make(pair.a, OpKind::kSend, 16)};
    ops[0].deadline_ms = 150;
    ops[1].deadline_ms = 150;
    pair.a.engine.submit(ops, 2);
    pair.settle();
    pair.a.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.b.engine.tick(t0 + std::chrono::milliseconds(ms));
  }
  EXPECT_FALSE(pair.a.closed);
  EXPECT_EQ(0u, pair.a.pending());
  EXPECT_TRUE(pair.a.violation.empty()) << pair.a.violation;
}

// A graceful close fails the queued operations as unposted; their deadlines go with them.
TEST(ChannelEngine, AGracefulCloseForgetsTheDeadlinesOfUnpostedOperations) {
  EngineOptions options = small(4);
  EnginePair pair(options);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Submission> sends;
  for (int i = 0; i < 8; ++i) sends.push_back(pair.make(pair.a, OpKind::kSend, 16));
  sends[7].deadline_ms = 200;
  pair.a.engine.submit(sends.data(), static_cast<int>(sends.size()));
  pair.a.engine.close();
  pair.settle();
  for (int ms = 100; ms <= 1000; ms += 100) {
    pair.a.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.b.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.settle();
  }
  ASSERT_TRUE(pair.a.closed);
  EXPECT_EQ(static_cast<int>(ClosedCause::kLocal), pair.a.closed_cause);
  expect_all_reported(pair.a);
}

TEST(ChannelEngine, AStallOfOurOwnIsNotThePeersSilence) {
  EngineOptions options = small(8);
  options.keepalive_ms = 1200;
  EnginePair pair(options);
  auto t0 = std::chrono::steady_clock::now();
  for (int ms = 100; ms <= 1000; ms += 100) {
    pair.a.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.b.engine.tick(t0 + std::chrono::milliseconds(ms));
    pair.settle();
  }
  // b's loop stalls for 3 s (a GC pause): a's keepalives wait unpolled; b's next tick is not a verdict.
  pair.b.engine.tick(t0 + std::chrono::milliseconds(4000));
  pair.process(pair.b, pair.a);
  EXPECT_FALSE(pair.b.closed);
  pair.settle();  // now b polls what a sent
  pair.b.engine.tick(t0 + std::chrono::milliseconds(4100));
  pair.process(pair.b, pair.a);
  EXPECT_FALSE(pair.b.closed);
}

}  // namespace
}  // namespace jrdma::test
