// The remote-memory agent of one channel (docs/protocol.md, "Remote-memory agent"): asking the peer
// to allocate memory for us and matching its answers to our requests by id, with a deadline; serving
// the peer's requests within a quota, with Java allocating the memory; releases both ways; and tokens,
// memory access either side hands the other. Every field from the peer is checked before it is used,
// and a request over the quota is refused before Java is asked.
//
// It knows no channel: what it tells Java, what it sends the peer and the keys it revokes go through
// an AgentPort (the channel engine, which carries the messages). Not thread-safe: the engine's lock
// guards it. Host-tested alone (remote_memory_agent_test.cc) and through two engines (agent_test.cc).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "protocol/agent.h"
#include "protocol/event_record.h"
#include "protocol/submission.h"
#include "wire/control_message.h"
#include "wire/message_header.h"

namespace jrdma {

// What the agent needs from its channel.
class AgentPort {
 public:
  virtual ~AgentPort() = default;
  // A record for Java now (answers, the peer's requests and releases) ...
  virtual void report(const EventRecord& record) = 0;
  // ... or in message order, with the channel's messages (tokens).
  virtual void report_in_order(const EventRecord& record) = 0;
  // A control message of the agent's own to the peer (sent when a credit allows).
  virtual void send_control(wire::MessageType type, const uint8_t* payload) = 0;
  // Memory we allocated for the peer was released: its key must not work any more.
  virtual void revoke_remote_key(uint32_t rkey) = 0;
};

class RemoteMemoryAgent {
 public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    uint32_t timeout_ms;   // an allocation request the peer does not answer this long fails
    uint64_t quota_bytes;  // bytes the peer may have us allocate for it at a time
    uint32_t quota_count;  // allocations the peer may hold at a time
  };

  RemoteMemoryAgent(uint32_t channel_key, const Limits& limits, AgentPort& port)
      : key_(channel_key),
        timeout_ms_(limits.timeout_ms),
        state_(limits.quota_bytes, limits.quota_count),
        port_(port) {}

  // Java's requests, releases and tokens (OpKind), and the messages that carry them.
  static bool handles(OpKind kind) noexcept {
    return kind == OpKind::kAllocateRemote || kind == OpKind::kReleaseRemote || kind == OpKind::kSendToken;
  }
  static bool carries(wire::MessageType type) noexcept {
    return type == wire::MessageType::kAgentRequest || type == wire::MessageType::kAgentReply ||
           type == wire::MessageType::kAgentRelease || type == wire::MessageType::kToken;
  }
  static wire::MessageType message_type(OpKind kind) noexcept {
    return kind == OpKind::kAllocateRemote  ? wire::MessageType::kAgentRequest
           : kind == OpKind::kReleaseRemote ? wire::MessageType::kAgentRelease
                                            : wire::MessageType::kToken;
  }
  // Throws RdmaError(kIllegalArgument) for what the peer would refuse as malformed (no size, access
  // bits that are none or unknown), so that it never leaves.
  static void check(const Submission& s);

  // Writes Java's request, release or token (checked) into `payload`; a request waits for the peer's
  // answer from `now` on, until the timeout.
  void encode(const Submission& s, uint8_t* payload, Clock::time_point now);
  // Java allocated (or could not allocate) what the peer asked for: the answer goes out. Throws
  // RdmaError(kIllegalArgument) when no request of that id waits for one.
  void answer(const Submission& s);
  // An agent message of the peer (carries(type)); a violation the channel must close for, or none.
  std::optional<ProtocolViolation> receive(wire::MessageType type, const uint8_t* payload);
  // Requests the peer has not answered in time fail with kTimedOut; a late answer is not reported.
  void expire(Clock::time_point now);
  // The channel closed: Java frees what it allocated for the peer and fails our requests.
  void clear() noexcept { state_.clear(); }

 private:
  std::optional<ProtocolViolation> request(const uint8_t* payload);
  std::optional<ProtocolViolation> reply(const uint8_t* payload);
  std::optional<ProtocolViolation> release(const uint8_t* payload);
  std::optional<ProtocolViolation> token(const uint8_t* payload);
  void answer_peer(const wire::AgentReply& reply);

  const uint32_t key_;
  const uint32_t timeout_ms_;
  AgentState state_;
  AgentPort& port_;
};

}  // namespace jrdma
