// The remote-memory agent over the in-memory transport: requests matched to answers by id, the
// quota refusing before anything is allocated, the deadline, releases and tokens both ways, and a
// hostile peer (releases of memory it was never given, answers to nothing, duplicate ids).
#include <gtest/gtest.h>

#include <chrono>

#include "test/protocol/engine_pair.h"
#include "wire/agent_message.h"
#include "wire/message_header.h"

namespace jrdma::test {
namespace {

EngineOptions options(uint64_t quota_bytes = 1 << 20, uint32_t quota_count = 8) {
  EngineOptions o;
  o.depth = 8;
  o.eager = 256;
  o.graceful_close_ms = 50;
  o.agent_timeout_ms = 1000;
  o.agent_quota_bytes = quota_bytes;
  o.agent_quota_count = quota_count;
  return o;
}

Submission allocate(Side& s, uint64_t size, uint32_t access = wire::kRemoteRead | wire::kRemoteWrite) {
  Submission sub{};
  sub.kind = static_cast<uint8_t>(OpKind::kAllocateRemote);
  sub.seq = s.next_seq++;
  sub.compare_add = size;
  sub.immediate = access;
  return sub;
}

Submission memory_message(Side& s, OpKind kind, uint64_t address, uint32_t rkey, uint64_t length, uint32_t access) {
  Submission sub{};
  sub.kind = static_cast<uint8_t>(kind);
  sub.seq = s.next_seq++;
  s.ops.emplace(sub.seq, ModelOp{kind, {}});
  sub.remote_address = address;
  sub.rkey = rkey;
  sub.compare_add = length;
  sub.immediate = access;
  return sub;
}

// "Java" answers the peer's request: granted at address/rkey, or failed with errno.
void answer(Side& s, uint64_t id, bool granted, uint64_t address = 0, uint32_t rkey = 0, uint64_t errno_value = 0) {
  Submission sub{};
  sub.kind = static_cast<uint8_t>(OpKind::kAgentAnswer);
  sub.compare_add = id;
  sub.immediate = static_cast<uint32_t>(granted ? wire::AgentStatus::kGranted : wire::AgentStatus::kFailed);
  sub.remote_address = address;
  sub.rkey = rkey;
  sub.swap = errno_value;
  s.engine.submit(&sub, 1);
}

void submit(Side& s, Submission sub) { s.engine.submit(&sub, 1); }

std::vector<EventRecord> take(Side& s, EventKind kind) {
  std::vector<EventRecord> found;
  for (const EventRecord& r : s.agent) {
    if (r.kind == static_cast<int32_t>(kind)) found.push_back(r);
  }
  return found;
}

TEST(Agent, AllocateReleaseAndTokenRoundTrip) {
  EnginePair pair(options());
  Submission request = allocate(pair.a, 1000, wire::kRemoteWrite);
  submit(pair.a, request);
  pair.settle();
  auto requests = take(pair.b, EventKind::kAgentRequest);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].a, static_cast<int32_t>(wire::kRemoteWrite));
  EXPECT_EQ(requests[0].d, 1000);
  EXPECT_TRUE(take(pair.a, EventKind::kAgentReply).empty());  // nothing until the peer answers

  answer(pair.b, static_cast<uint64_t>(requests[0].c), true, 0xA000, 0x55);
  pair.settle();
  auto replies = take(pair.a, EventKind::kAgentReply);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].a, static_cast<int32_t>(wire::AgentStatus::kGranted));
  EXPECT_EQ(static_cast<uint64_t>(replies[0].c), request.seq);
  EXPECT_EQ(replies[0].b, 0x55);
  EXPECT_EQ(replies[0].d, 0xA000);

  submit(pair.a, memory_message(pair.a, OpKind::kReleaseRemote, 0xA000, 0x55, 1000, 0));
  submit(pair.a, memory_message(pair.a, OpKind::kSendToken, 0xB000, 0x66, 64, wire::kRemoteRead));
  pair.settle();
  auto releases = take(pair.b, EventKind::kAgentRelease);
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].c, 0xA000);
  EXPECT_EQ(releases[0].b, 0x55);
  EXPECT_EQ(releases[0].d, 1000);
  auto tokens = take(pair.b, EventKind::kToken);
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].a, static_cast<int32_t>(wire::kRemoteRead));
  EXPECT_EQ(tokens[0].b, 0x66);
  EXPECT_EQ(tokens[0].c, 0xB000);
  EXPECT_EQ(tokens[0].d, 64);
  for (const auto& [seq, op] : pair.a.ops) EXPECT_EQ(op.state, ModelOp::kDone) << "seq " << seq;
  EXPECT_EQ(pair.a.violation, "");
  EXPECT_EQ(pair.b.violation, "");
  EXPECT_FALSE(pair.a.closed || pair.b.closed);
}

TEST(Agent, TheQuotaRefusesBeforeJavaIsAskedAndAReleaseGivesItBack) {
  EnginePair pair(options(1000, 2));
  for (uint64_t size : {400, 400, 100, 300}) submit(pair.a, allocate(pair.a, size));
  pair.settle();
  auto requests = take(pair.b, EventKind::kAgentRequest);
  ASSERT_EQ(requests.size(), 2u);  // the third and fourth were refused by the engine
  auto replies = take(pair.a, EventKind::kAgentReply);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].a, static_cast<int32_t>(wire::AgentStatus::kOverCount));
  EXPECT_EQ(replies[0].d, 2);  // the limit
  EXPECT_EQ(replies[1].a, static_cast<int32_t>(wire::AgentStatus::kOverCount));

  answer(pair.b, static_cast<uint64_t>(requests[0].c), true, 0x1000, 1);
  answer(pair.b, static_cast<uint64_t>(requests[1].c), false, 0, 0, 12);  // ENOMEM: its quota comes back
  pair.settle();
  replies = take(pair.a, EventKind::kAgentReply);
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_EQ(replies[3].a, static_cast<int32_t>(wire::AgentStatus::kFailed));
  EXPECT_EQ(replies[3].d, 12);

  submit(pair.a, allocate(pair.a, 700));  // 400 + 700 > 1000
  pair.settle();
  replies = take(pair.a, EventKind::kAgentReply);
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(replies[4].a, static_cast<int32_t>(wire::AgentStatus::kOverBytes));
  EXPECT_EQ(replies[4].d, 1000);

  submit(pair.a, memory_message(pair.a, OpKind::kReleaseRemote, 0x1000, 1, 400, 0));
  submit(pair.a, allocate(pair.a, 1000));  // the whole quota again
  pair.settle();
  EXPECT_EQ(take(pair.b, EventKind::kAgentRequest).size(), 3u);
  EXPECT_FALSE(pair.a.closed || pair.b.closed);
}

TEST(Agent, AnUnansweredRequestTimesOutOnceAndALateGrantIsReleased) {
  EnginePair pair(options());
  Submission request = allocate(pair.a, 100);
  submit(pair.a, request);
  pair.settle();
  auto now = std::chrono::steady_clock::now();
  pair.a.engine.tick(now);
  pair.process(pair.a, pair.b);
  EXPECT_TRUE(take(pair.a, EventKind::kAgentReply).empty());  // not yet
  pair.a.engine.tick(now + std::chrono::milliseconds(1001));
  pair.process(pair.a, pair.b);
  auto replies = take(pair.a, EventKind::kAgentReply);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].a, static_cast<int32_t>(wire::AgentStatus::kTimedOut));
  EXPECT_EQ(replies[0].d, 1000);
  pair.a.engine.tick(now + std::chrono::milliseconds(3000));
  pair.process(pair.a, pair.b);
  EXPECT_EQ(take(pair.a, EventKind::kAgentReply).size(), 1u);  // reported once

  auto requests = take(pair.b, EventKind::kAgentRequest);
  ASSERT_EQ(requests.size(), 1u);
  answer(pair.b, static_cast<uint64_t>(requests[0].c), true, 0x2000, 9);
  pair.settle();
  EXPECT_EQ(take(pair.a, EventKind::kAgentReply).size(), 1u);  // the late grant is not reported...
  auto releases = take(pair.b, EventKind::kAgentRelease);      // ...but given back at once
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].c, 0x2000);
  EXPECT_EQ(releases[0].d, 100);
  EXPECT_FALSE(pair.a.closed || pair.b.closed);
}

TEST(Agent, ACloseFailsWaitingRequestsThroughTheClosedRecord) {
  EnginePair pair(options());
  submit(pair.a, allocate(pair.a, 100));
  pair.settle();
  pair.a.engine.abort(ClosedCause::kLocal);
  pair.process(pair.a, pair.b);
  EXPECT_TRUE(pair.a.closed);
  EXPECT_TRUE(take(pair.a, EventKind::kAgentReply).empty());  // kChannelClosed fails it in Java
  // An answer of Java's for a channel that closed meanwhile is dropped (Java frees the memory).
  pair.b.engine.abort(ClosedCause::kPeerDisconnected);
  answer(pair.b, static_cast<uint64_t>(take(pair.b, EventKind::kAgentRequest).at(0).c), true, 0x3000, 3);
  pair.process(pair.b, pair.a);
  EXPECT_EQ(pair.b.violation, "");
}

TEST(Agent, AnAnswerForNoWaitingRequestIsRefusedLocally) {
  EnginePair pair(options());
  EXPECT_THROW(answer(pair.b, 42, true, 0x1000, 1), RdmaError);
  EXPECT_FALSE(pair.b.closed);
}

// ---- hostile peer ---------------------------------------------------------------------------

void inject(EnginePair& pair, wire::MessageType type, uint64_t id,
            const uint8_t (&payload)[wire::kControlPayloadSize]) {
  uint8_t bytes[kHeaderSlotSize] = {};
  wire::encode_header({type, 0, 0, wire::kControlPayloadSize, id}, bytes);
  std::memcpy(bytes + wire::kHeaderSize, payload, sizeof payload);
  uint32_t slot = pair.b.transport.first_posted_receive();
  pair.b.transport.take_first_receive();
  std::memcpy(pair.b.transport.ring_slot(slot), bytes, sizeof bytes);
  pair.b.transport.push_completion(
      {true, slot, kStatusSuccess, static_cast<uint32_t>(wire::kHeaderSize + wire::kControlPayloadSize)});
  pair.b.transport.deliver_one(pair.b.engine);
  pair.process(pair.b, pair.a);
}

int violation_of(void (*build)(uint8_t*), wire::MessageType type, int messages = 1) {
  EnginePair pair(options());
  uint8_t payload[wire::kControlPayloadSize] = {};
  build(payload);
  for (int i = 0; i < messages; ++i) inject(pair, type, static_cast<uint64_t>(i), payload);
  EXPECT_TRUE(pair.b.closed);
  EXPECT_EQ(pair.b.closed_cause, static_cast<int>(ClosedCause::kProtocolError));
  return pair.b.closed_code;
}

TEST(Agent, AHostilePeerClosesOnlyItsChannelAndGetsNothing) {
  // A release of memory never allocated for it: nothing is freed.
  EXPECT_EQ(violation_of(
                [](uint8_t* p) {
                  wire::encode_release({0x1000, 1, 0, 100}, p);
                },
                wire::MessageType::kAgentRelease),
            static_cast<int>(ProtocolViolation::kUnknownAllocation));
  // An answer to no request of ours.
  EXPECT_EQ(violation_of(
                [](uint8_t* p) {
                  wire::encode_agent_reply({5, wire::AgentStatus::kGranted, 1, 0x1000}, p);
                },
                wire::MessageType::kAgentReply),
            static_cast<int>(ProtocolViolation::kUnknownRequest));
  // The same request id twice while the first waits.
  EXPECT_EQ(violation_of(
                [](uint8_t* p) {
                  wire::encode_agent_request({7, wire::kRemoteRead, 100}, p);
                },
                wire::MessageType::kAgentRequest, 2),
            static_cast<int>(ProtocolViolation::kDuplicateRequest));
  // Unknown access bits, size 0, a status nobody defined, a token of no bytes.
  EXPECT_EQ(violation_of(
                [](uint8_t* p) {
                  wire::encode_agent_request({7, 8, 100}, p);
                },
                wire::MessageType::kAgentRequest),
            static_cast<int>(ProtocolViolation::kBadControlMessage));
  EXPECT_EQ(violation_of(
                [](uint8_t* p) {
                  wire::encode_agent_request({7, 1, 0}, p);
                },
                wire::MessageType::kAgentRequest),
            static_cast<int>(ProtocolViolation::kBadControlMessage));
  EXPECT_EQ(violation_of([](uint8_t* p) { p[8] = 4; }, wire::MessageType::kAgentReply),
            static_cast<int>(ProtocolViolation::kBadControlMessage));
  EXPECT_EQ(violation_of(
                [](uint8_t* p) {
                  wire::encode_token({0x1000, 1, wire::kRemoteRead, 0}, p);
                },
                wire::MessageType::kToken),
            static_cast<int>(ProtocolViolation::kBadControlMessage));
}

TEST(Agent, AFloodOfRequestsBeyondTheQuotaAllocatesNothing) {
  EnginePair pair(options(1 << 20, 2));
  for (uint64_t id = 0; id < 6; ++id) {
    uint8_t payload[wire::kControlPayloadSize] = {};
    wire::encode_agent_request({id, wire::kRemoteWrite, 1ull << 40}, payload);  // a tebibyte each
    inject(pair, wire::MessageType::kAgentRequest, id, payload);
  }
  EXPECT_FALSE(pair.b.closed);
  EXPECT_TRUE(take(pair.b, EventKind::kAgentRequest).empty());  // Java was asked for nothing
}

}  // namespace
}  // namespace jrdma::test
