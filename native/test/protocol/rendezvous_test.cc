// Rendezvous over the in-memory transport: messages of any size in one ordered stream with eager
// ones, READs in chunks within the queue pair's limit, receives the application posts, the
// receive budget, and a hostile or failing peer (too long, too many, forged key, unknown answer).
#include <gtest/gtest.h>

#include <algorithm>

#include "test/protocol/engine_pair.h"
#include "wire/control_message.h"
#include "wire/message_header.h"

namespace jrdma::test {
namespace {

EngineOptions options(uint32_t depth, uint32_t eager = 256, uint32_t chunk = 100, uint32_t max_reads = 2) {
  EngineOptions o;
  o.depth = depth;
  o.eager = eager;
  o.graceful_close_ms = 50;
  o.read_chunk = chunk;
  o.max_reads = max_reads;
  o.rendezvous = 3;
  o.max_message = 1u << 20;
  return o;
}

void expect_clean(EnginePair& pair) {
  for (Side* s : {&pair.a, &pair.b}) {
    ASSERT_EQ(s->violation, "");
    for (const auto& [seq, op] : s->ops) EXPECT_NE(op.state, ModelOp::kPending) << "seq " << seq << " never reported";
  }
}

void run(EnginePair& pair) {
  pair.settle();
  expect_clean(pair);
}

TEST(Rendezvous, RandomInterleavingsKeepOneOrderedStreamOfEveryMessageSize) {
  uint64_t large = 0;
  uint64_t posted = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // A budget of ~2 large messages: transfers also wait for it.
    EnginePair pair(options(seed % 2 == 0 ? 8 : 32, 256, 100 + seed % 300, 1 + seed % 4), seed, 1200);
    for (int i = 0; i < 1500; ++i) pair.step();
    run(pair);
    for (Side* s : {&pair.a, &pair.b}) {
      EXPECT_FALSE(s->closed);
      for (const auto& [seq, op] : s->ops) EXPECT_EQ(op.state, ModelOp::kDone) << "seq " << seq;
      EXPECT_EQ(s->transport.exposures(), 0u) << "a source stayed readable after its transfer";
      EXPECT_TRUE(s->transfer_buffers.empty());
      large += s->large_received;
      posted += s->received_into_posted;
    }
    EXPECT_EQ(pair.a.data_received, pair.b.data_sent);
    EXPECT_EQ(pair.b.data_received, pair.a.data_sent);
    EXPECT_EQ(pair.budget->in_use(), 0u);
  }
  EXPECT_GT(large, 1000u);  // the random steps did exercise rendezvous and posted receives
  EXPECT_GT(posted, 100u);
}

TEST(Rendezvous, CloseAndAbortInFlightRevokeEverySourceAndReturnTheBudget) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    EnginePair pair(options(8), seed, 1200);
    int close_at = 1 + static_cast<int>(pair.rng() % 400);
    for (int i = 0; i < 600; ++i) {
      if (i == close_at) {
        if (seed % 2 == 0) {
          pair.a.engine.close();
        } else {
          pair.b.engine.abort(ClosedCause::kLocal);
        }
      }
      pair.step();
    }
    pair.settle();
    for (Side* s : {&pair.a, &pair.b}) {
      // Bounded graceful close: a side still closing ends at its deadline.
      s->engine.tick(std::chrono::steady_clock::now() + std::chrono::seconds(1));
    }
    pair.settle();
    expect_clean(pair);
    for (Side* s : {&pair.a, &pair.b}) {
      EXPECT_TRUE(s->closed);
      EXPECT_EQ(s->transport.exposures(), 0u);
      EXPECT_EQ(s->transport.unknown_revokes, 0);
    }
    EXPECT_EQ(pair.budget->in_use(), 0u);
  }
}

// a sends a large message then an eager one; b sees them in that order although the eager one
// arrives first and the large one is read in several chunks, no more than max_reads at a time.
TEST(Rendezvous, AnEagerMessageWaitsBehindALargeOneSentBeforeIt) {
  EnginePair pair(options(8, 256, 100, 2));
  Submission batch[2] = {pair.make(pair.a, OpKind::kSend, 1000), pair.make(pair.a, OpKind::kSend, 50)};
  pair.a.engine.submit(batch, 2);
  while (pair.a.transport.pending_sends() > 0) ASSERT_EQ(pair.a.transport.execute_one(), "");
  while (pair.b.transport.deliver_one(pair.b.engine)) {
  }
  pair.process(pair.b, pair.a);
  ASSERT_EQ(pair.b.needs.size(), 1u);
  EXPECT_EQ(pair.b.data_received, 0u);  // the eager message is held back
  EXPECT_EQ(pair.b.needs[0].second, 1000u);
  pair.answer_need(pair.b, 0);
  EXPECT_EQ(pair.b.transport.pending_sends(), 2u);  // max_reads READs of 100 bytes
  run(pair);
  EXPECT_EQ(pair.b.data_received, 2u);
  EXPECT_EQ(pair.b.large_received, 1u);
  EXPECT_EQ(pair.b.transport.reads_executed, 10);
  EXPECT_EQ(pair.a.ops[0].state, ModelOp::kDone);
  EXPECT_EQ(pair.a.transport.exposures(), 0u);
}

// Java's futures complete in submission order: an eager send posted after a large one is reported
// only once the large one is answered.
TEST(Rendezvous, ReportsStayInSubmissionOrder) {
  EnginePair pair(options(8));
  Submission batch[2] = {pair.make(pair.a, OpKind::kSend, 1000), pair.make(pair.a, OpKind::kWrite, 8)};
  pair.a.engine.submit(batch, 2);
  while (pair.a.transport.pending_sends() > 0) ASSERT_EQ(pair.a.transport.execute_one(), "");
  while (pair.a.transport.deliver_one(pair.a.engine)) {
  }
  pair.process(pair.a, pair.b);
  EXPECT_EQ(pair.a.ops[1].state, ModelOp::kPending);  // done on the wire, waits for the first
  run(pair);
  EXPECT_EQ(pair.a.ops[0].state, ModelOp::kDone);
  EXPECT_EQ(pair.a.ops[1].state, ModelOp::kDone);
}

TEST(Rendezvous, APostedReceiveTooSmallFailsWithTheNeededSizeAndSoDoesTheSendTheChannelLivesOn) {
  EnginePair pair(options(8));
  pair.post_receive(pair.b, 500);
  Submission big = pair.make(pair.a, OpKind::kSend, 1000);
  pair.a.engine.submit(&big, 1);
  pair.settle();
  ASSERT_EQ(pair.b.violation, "");
  EXPECT_TRUE(pair.b.posted.empty());  // reported (kReceiveTooSmall)
  EXPECT_EQ(pair.a.ops[0].status, static_cast<int>(OpStatus::kPeerBufferTooSmall));
  EXPECT_EQ(pair.a.transport.exposures(), 0u);
  EXPECT_EQ(pair.b.transport.reads_executed, 0);
  // The channel goes on; the next message is counted after the refused one.
  pair.b.data_received = 1;
  Submission next = pair.make(pair.a, OpKind::kSend, 1000);
  pair.a.engine.submit(&next, 1);
  run(pair);
  EXPECT_EQ(pair.b.large_received, 1u);
  EXPECT_FALSE(pair.a.closed || pair.b.closed);
}

TEST(Rendezvous, AnEagerMessageTooLargeForThePostedReceiveGoesToTheHandler) {
  EnginePair pair(options(8));
  pair.post_receive(pair.b, 10);
  Submission send = pair.make(pair.a, OpKind::kSend, 100);
  pair.a.engine.submit(&send, 1);
  run(pair);
  EXPECT_TRUE(pair.b.posted.empty());
  EXPECT_EQ(pair.b.received_into_posted, 0u);
  EXPECT_EQ(pair.b.data_received, 1u);  // through kMessage
}

TEST(Rendezvous, MessagesFillPostedReceivesInOrderEagerByCopyLargeByRead) {
  EnginePair pair(options(8));
  for (int i = 0; i < 3; ++i) pair.post_receive(pair.b, 2000);
  Submission batch[3] = {pair.make(pair.a, OpKind::kSend, 40), pair.make(pair.a, OpKind::kSend, 1500),
                         pair.make(pair.a, OpKind::kSend, 60)};
  pair.a.engine.submit(batch, 3);
  run(pair);
  EXPECT_EQ(pair.b.received_into_posted, 3u);
  EXPECT_TRUE(pair.b.needs.empty() && pair.b.transfer_buffers.empty());  // no buffer was asked for
}

TEST(Rendezvous, TheReceiverCanRefuseATransferAndTheSenderLearnsWhy) {
  EnginePair pair(options(8));
  Submission big = pair.make(pair.a, OpKind::kSend, 1000);
  pair.a.engine.submit(&big, 1);
  pair.a.transport.execute_one();
  pair.b.transport.deliver_one(pair.b.engine);
  pair.process(pair.b, pair.a);
  ASSERT_EQ(pair.b.needs.size(), 1u);
  Submission refuse{};
  refuse.kind = static_cast<uint8_t>(OpKind::kTransferBuffer);
  refuse.compare_add = pair.b.needs[0].first;
  refuse.swap = 12;  // ENOMEM
  pair.b.needs.clear();
  pair.b.engine.submit(&refuse, 1);
  run(pair);
  EXPECT_EQ(pair.a.ops[0].status, static_cast<int>(OpStatus::kPeerCouldNotReceive));
  EXPECT_EQ(pair.a.ops[0].result, 12);
  EXPECT_FALSE(pair.a.closed || pair.b.closed);
  // A buffer for a transfer that does not wait for one is refused locally.
  EXPECT_THROW(pair.b.engine.submit(&refuse, 1), RdmaError);
}

TEST(Rendezvous, ASourceThatCannotBeExposedFailsThatSendOnly) {
  EnginePair pair(options(8));
  pair.a.transport.fail_next_expose = true;
  Submission batch[2] = {pair.make(pair.a, OpKind::kSend, 1000), pair.make(pair.a, OpKind::kSend, 10)};
  pair.a.engine.submit(batch, 2);
  pair.b.data_received = 1;  // message 0 never leaves
  run(pair);
  EXPECT_EQ(pair.a.ops[0].status, static_cast<int>(OpStatus::kExposeFailed));
  EXPECT_EQ(pair.a.ops[0].result, 12);
  EXPECT_EQ(pair.a.ops[1].state, ModelOp::kDone);
  EXPECT_FALSE(pair.a.closed);
}

TEST(Rendezvous, TheBudgetLetsTransfersReadOneAfterAnotherAndOneLargerThanItAlone) {
  EnginePair pair(options(16), 1, 1500);
  Submission batch[3] = {pair.make(pair.a, OpKind::kSend, 1000), pair.make(pair.a, OpKind::kSend, 1000),
                         pair.make(pair.a, OpKind::kSend, 3000)};
  pair.a.engine.submit(batch, 3);
  while (pair.a.transport.pending_sends() > 0) ASSERT_EQ(pair.a.transport.execute_one(), "");
  while (pair.b.transport.deliver_one(pair.b.engine)) {
  }
  pair.process(pair.b, pair.a);
  EXPECT_EQ(pair.b.needs.size(), 1u);  // the second does not fit the budget yet
  EXPECT_EQ(pair.budget->in_use(), 1000u);
  run(pair);
  EXPECT_EQ(pair.b.large_received, 3u);
  EXPECT_EQ(pair.budget->in_use(), 0u);
}

// ---- hostile peer ---------------------------------------------------------------------------

// A control message on the wire: header and its 24-byte payload (the slot has room for AUTH's 48).
constexpr std::size_t kControlMessageSize = wire::kHeaderSize + wire::kControlPayloadSize;

// Delivers a control message from a forged peer into b's next receive buffer.
void inject_control(EnginePair& pair, const uint8_t (&bytes)[kHeaderSlotSize]) {
  uint32_t slot = pair.b.transport.first_posted_receive();
  pair.b.transport.take_first_receive();
  std::memcpy(pair.b.transport.ring_slot(slot), bytes, sizeof bytes);
  pair.b.transport.push_completion({true, slot, kStatusSuccess, static_cast<uint32_t>(kControlMessageSize)});
  pair.b.transport.deliver_one(pair.b.engine);
  pair.process(pair.b, pair.a);
}

void inject_start(EnginePair& pair, uint64_t id, uint64_t address, uint32_t rkey, uint64_t length) {
  uint8_t bytes[kHeaderSlotSize] = {};
  wire::encode_header({wire::MessageType::kRendezvousStart, 0, 0, wire::kControlPayloadSize, id}, bytes);
  wire::encode_start({address, rkey, length}, bytes + wire::kHeaderSize);
  inject_control(pair, bytes);
}

TEST(Rendezvous, AStartAnnouncingOneTebibyteIsAProtocolErrorBeforeAnythingIsAllocated) {
  EnginePair pair(options(8), 1, 1 << 20);
  inject_start(pair, 0, 0x1000, 5, 1ull << 40);
  EXPECT_TRUE(pair.b.closed);
  EXPECT_EQ(pair.b.closed_cause, static_cast<int>(ClosedCause::kProtocolError));
  EXPECT_EQ(pair.b.closed_code, static_cast<int>(ProtocolViolation::kTransferTooLong));
  EXPECT_TRUE(pair.b.needs.empty());
  EXPECT_EQ(pair.budget->in_use(), 0u);
}

TEST(Rendezvous, MoreStartsThanAnnouncedAreAProtocolError) {
  EnginePair pair(options(8));
  for (uint64_t id = 0; id < 4; ++id) inject_start(pair, id, 0x1000, 5, 1000);
  EXPECT_EQ(pair.b.closed_code, static_cast<int>(ProtocolViolation::kTooManyTransfers));
}

TEST(Rendezvous, AForgedKeyFailsTheReadAndClosesThatChannel) {
  EnginePair pair(options(8));
  std::vector<uint8_t> secret(1000, 7);
  inject_start(pair, 0, reinterpret_cast<uintptr_t>(secret.data()), 0x4242, 1000);
  ASSERT_EQ(pair.b.needs.size(), 1u);
  pair.answer_need(pair.b, 0);
  pair.b.transport.execute_one();
  pair.b.transport.deliver_one(pair.b.engine);
  pair.process(pair.b, pair.a);
  EXPECT_TRUE(pair.b.closed);
  EXPECT_EQ(pair.b.closed_cause, static_cast<int>(ClosedCause::kOperationFailed));
  EXPECT_EQ(pair.b.transport.reads_executed, 0);
}

TEST(Rendezvous, AnAnswerForNoTransferOrAMalformedOneIsAProtocolError) {
  for (bool malformed : {false, true}) {
    EnginePair pair(options(8));
    uint8_t bytes[kHeaderSlotSize] = {};
    wire::encode_header({wire::MessageType::kRendezvousDone, 0, 0, wire::kControlPayloadSize, 0}, bytes);
    wire::encode_done({77, wire::RendezvousStatus::kDone, 0}, bytes + wire::kHeaderSize);
    if (malformed) bytes[wire::kHeaderSize + 12] = 1;
    inject_control(pair, bytes);
    EXPECT_EQ(pair.b.closed_code, static_cast<int>(malformed ? ProtocolViolation::kBadControlMessage
                                                             : ProtocolViolation::kUnknownTransfer));
  }
}

}  // namespace
}  // namespace jrdma::test
