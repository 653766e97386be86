// The remote-memory agent alone (protocol/remote_memory_agent.h), without a channel: what it tells
// Java, what it answers the peer, what it refuses; agent_test.cc runs it between two engines.
#include "protocol/remote_memory_agent.h"

#include <gtest/gtest.h>

#include <vector>

#include "base/error.h"
#include "wire/agent_message.h"

namespace jrdma {
namespace {

using Clock = std::chrono::steady_clock;

// Records what the agent says, as the engine would carry it.
struct RecordingPort : AgentPort {
  struct Sent {
    wire::MessageType type;
    std::vector<uint8_t> payload;
  };
  std::vector<EventRecord> reports;
  std::vector<EventRecord> in_order;
  std::vector<Sent> sent;
  std::vector<uint32_t> revoked;

  void report(const EventRecord& record) override { reports.push_back(record); }
  void report_in_order(const EventRecord& record) override { in_order.push_back(record); }
  void send_control(wire::MessageType type, const uint8_t* payload) override {
    sent.push_back({type, std::vector<uint8_t>(payload, payload + wire::kControlPayloadSize)});
  }
  void revoke_remote_key(uint32_t rkey) override { revoked.push_back(rkey); }
  wire::AgentReply reply(std::size_t i) const {
    wire::AgentReply r;
    EXPECT_EQ(wire::MessageType::kAgentReply, sent.at(i).type);
    EXPECT_TRUE(wire::decode_agent_reply(sent.at(i).payload.data(), &r));
    return r;
  }
};

constexpr uint32_t kKey = 7;
constexpr RemoteMemoryAgent::Limits kLimits{1000, 1 << 20, 2};

Submission ours(OpKind kind, uint64_t seq, uint64_t size, uint32_t access = wire::kRemoteWrite) {
  Submission s{};
  s.kind = static_cast<uint8_t>(kind);
  s.seq = seq;
  s.compare_add = size;
  s.immediate = access;
  return s;
}

struct Payload {
  uint8_t bytes[wire::kControlPayloadSize] = {};
};

Payload peer_request(uint64_t id, uint64_t size) {
  Payload p;
  wire::encode_agent_request(wire::AgentRequest{id, wire::kRemoteWrite, size}, p.bytes);
  return p;
}

Payload peer_reply(uint64_t id, wire::AgentStatus status, uint32_t rkey, uint64_t address) {
  Payload p;
  wire::encode_agent_reply(wire::AgentReply{id, status, rkey, address}, p.bytes);
  return p;
}

Submission java_answer(uint64_t id, uint32_t rkey, uint64_t address) {
  Submission s{};
  s.kind = static_cast<uint8_t>(OpKind::kAgentAnswer);
  s.compare_add = id;
  s.immediate = static_cast<uint32_t>(wire::AgentStatus::kGranted);
  s.rkey = rkey;
  s.remote_address = address;
  return s;
}

TEST(RemoteMemoryAgent, OurRequestIsAnsweredOnceByItsId) {
  RecordingPort port;
  RemoteMemoryAgent agent(kKey, kLimits, port);
  Payload request;
  agent.encode(ours(OpKind::kAllocateRemote, 41, 4096), request.bytes, Clock::now());
  wire::AgentRequest sent;
  ASSERT_TRUE(wire::decode_agent_request(request.bytes, &sent));
  EXPECT_EQ(41u, sent.id);
  EXPECT_EQ(4096u, sent.size);

  Payload granted = peer_reply(41, wire::AgentStatus::kGranted, 99, 0x1000);
  EXPECT_FALSE(agent.receive(wire::MessageType::kAgentReply, granted.bytes).has_value());
  ASSERT_EQ(1u, port.reports.size());
  EXPECT_EQ(EventKind::kAgentReply, static_cast<EventKind>(port.reports[0].kind));
  EXPECT_EQ(static_cast<int32_t>(kKey), port.reports[0].key);
  EXPECT_EQ(99, port.reports[0].b);
  EXPECT_EQ(41, port.reports[0].c);
  EXPECT_EQ(0x1000, port.reports[0].d);
  // A second answer to the same request answers nothing of ours.
  EXPECT_EQ(ProtocolViolation::kUnknownRequest, agent.receive(wire::MessageType::kAgentReply, granted.bytes));
}

TEST(RemoteMemoryAgent, ThePeersRequestGoesToJavaAndItsReleaseRevokesTheKey) {
  RecordingPort port;
  RemoteMemoryAgent agent(kKey, kLimits, port);
  Payload request = peer_request(5, 8192);
  EXPECT_FALSE(agent.receive(wire::MessageType::kAgentRequest, request.bytes).has_value());
  ASSERT_EQ(1u, port.reports.size());
  EXPECT_EQ(EventKind::kAgentRequest, static_cast<EventKind>(port.reports[0].kind));
  EXPECT_EQ(ProtocolViolation::kDuplicateRequest, agent.receive(wire::MessageType::kAgentRequest, request.bytes));

  agent.answer(java_answer(5, 77, 0x2000));
  ASSERT_EQ(1u, port.sent.size());
  EXPECT_EQ(wire::AgentStatus::kGranted, port.reply(0).status);
  EXPECT_EQ(77u, port.reply(0).rkey);
  EXPECT_THROW(agent.answer(java_answer(5, 77, 0x2000)), RdmaError);  // answered already

  Payload wrong;
  wire::encode_release(wire::MemoryToken{0x2000, 77, 0, 4096}, wrong.bytes);  // not the size it was given
  EXPECT_EQ(ProtocolViolation::kUnknownAllocation, agent.receive(wire::MessageType::kAgentRelease, wrong.bytes));
  EXPECT_TRUE(port.revoked.empty());
  Payload release;
  wire::encode_release(wire::MemoryToken{0x2000, 77, 0, 8192}, release.bytes);
  EXPECT_FALSE(agent.receive(wire::MessageType::kAgentRelease, release.bytes).has_value());
  EXPECT_EQ(std::vector<uint32_t>{77}, port.revoked);
  EXPECT_EQ(EventKind::kAgentRelease, static_cast<EventKind>(port.reports.back().kind));
}

TEST(RemoteMemoryAgent, TheQuotaRefusesBeforeJavaIsAsked) {
  RecordingPort port;
  RemoteMemoryAgent agent(kKey, kLimits, port);
  Payload too_big = peer_request(1, (1 << 20) + 1);
  EXPECT_FALSE(agent.receive(wire::MessageType::kAgentRequest, too_big.bytes).has_value());
  EXPECT_TRUE(port.reports.empty());
  ASSERT_EQ(1u, port.sent.size());
  EXPECT_EQ(wire::AgentStatus::kOverBytes, port.reply(0).status);
  EXPECT_EQ(uint64_t{1} << 20, port.reply(0).address_or_detail);
  for (uint64_t id = 2; id <= 3; ++id) {
    Payload p = peer_request(id, 16);
    EXPECT_FALSE(agent.receive(wire::MessageType::kAgentRequest, p.bytes).has_value());
  }
  Payload third = peer_request(4, 16);  // two at a time
  EXPECT_FALSE(agent.receive(wire::MessageType::kAgentRequest, third.bytes).has_value());
  EXPECT_EQ(wire::AgentStatus::kOverCount, port.reply(1).status);
  EXPECT_EQ(2u, port.reply(1).address_or_detail);
  EXPECT_EQ(2u, port.reports.size());
}

TEST(RemoteMemoryAgent, AnUnansweredRequestTimesOutOnceAndALateGrantIsReleased) {
  RecordingPort port;
  RemoteMemoryAgent agent(kKey, kLimits, port);
  Clock::time_point start = Clock::now();
  Payload request;
  agent.encode(ours(OpKind::kAllocateRemote, 3, 64), request.bytes, start);
  agent.expire(start + std::chrono::milliseconds(999));
  EXPECT_TRUE(port.reports.empty());
  agent.expire(start + std::chrono::milliseconds(1000));
  agent.expire(start + std::chrono::milliseconds(2000));
  ASSERT_EQ(1u, port.reports.size());
  EXPECT_EQ(static_cast<int32_t>(wire::AgentStatus::kTimedOut), port.reports[0].a);
  EXPECT_EQ(1000, port.reports[0].d);

  Payload late = peer_reply(3, wire::AgentStatus::kGranted, 12, 0x3000);
  EXPECT_FALSE(agent.receive(wire::MessageType::kAgentReply, late.bytes).has_value());
  EXPECT_EQ(1u, port.reports.size());  // not reported
  ASSERT_EQ(1u, port.sent.size());
  EXPECT_EQ(wire::MessageType::kAgentRelease, port.sent[0].type);
  wire::MemoryToken released;
  ASSERT_TRUE(wire::decode_release(port.sent[0].payload.data(), &released));
  EXPECT_EQ(0x3000u, released.address);
  EXPECT_EQ(12u, released.rkey);
  EXPECT_EQ(64u, released.length);
}

TEST(RemoteMemoryAgent, TokensGoInMessageOrderAndGarbageIsAViolation) {
  RecordingPort port;
  RemoteMemoryAgent agent(kKey, kLimits, port);
  Payload token;
  wire::encode_token(wire::MemoryToken{0x4000, 5, wire::kRemoteRead, 128}, token.bytes);
  EXPECT_FALSE(agent.receive(wire::MessageType::kToken, token.bytes).has_value());
  ASSERT_EQ(1u, port.in_order.size());
  EXPECT_EQ(EventKind::kToken, static_cast<EventKind>(port.in_order[0].kind));
  EXPECT_TRUE(port.reports.empty());

  Payload garbage;
  std::fill(std::begin(garbage.bytes), std::end(garbage.bytes), 0xff);
  for (wire::MessageType type : {wire::MessageType::kAgentRequest, wire::MessageType::kAgentReply,
                                 wire::MessageType::kAgentRelease, wire::MessageType::kToken}) {
    EXPECT_EQ(ProtocolViolation::kBadControlMessage, agent.receive(type, garbage.bytes)) << static_cast<int>(type);
  }
  EXPECT_TRUE(port.sent.empty());
}

TEST(RemoteMemoryAgent, WhatThePeerWouldRefuseNeverLeaves) {
  EXPECT_THROW(RemoteMemoryAgent::check(ours(OpKind::kAllocateRemote, 1, 0)), RdmaError);  // no size
  EXPECT_THROW(RemoteMemoryAgent::check(ours(OpKind::kSendToken, 1, 64, 0)), RdmaError);   // no access
  EXPECT_THROW(RemoteMemoryAgent::check(ours(OpKind::kSendToken, 1, 64, 1u << 30)), RdmaError);
  EXPECT_NO_THROW(RemoteMemoryAgent::check(ours(OpKind::kReleaseRemote, 1, 64, 0)));
  EXPECT_NO_THROW(RemoteMemoryAgent::check(ours(OpKind::kAllocateRemote, 1, 64)));
}

}  // namespace
}  // namespace jrdma
