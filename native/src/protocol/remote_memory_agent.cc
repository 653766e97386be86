#include "protocol/remote_memory_agent.h"

#include <string>

#include "base/error.h"

namespace jrdma {

void RemoteMemoryAgent::check(const Submission& s) {
  auto kind = static_cast<OpKind>(s.kind);
  bool access_ok = kind == OpKind::kReleaseRemote ||
                   (s.immediate != 0 && (s.immediate & ~static_cast<uint32_t>(wire::kAllRemoteAccess)) == 0);
  if (s.compare_add == 0 || !access_ok) {
    throw RdmaError(ErrorKind::kIllegalArgument, std::string(op_verb(kind)) + " of " + std::to_string(s.compare_add) +
                                                     " bytes with access bits " + std::to_string(s.immediate));
  }
}

void RemoteMemoryAgent::encode(const Submission& s, uint8_t* payload, Clock::time_point now) {
  wire::MemoryToken memory{s.remote_address, s.rkey, s.immediate, s.compare_add};
  switch (static_cast<OpKind>(s.kind)) {
    case OpKind::kAllocateRemote:
      wire::encode_agent_request(wire::AgentRequest{s.seq, s.immediate, s.compare_add}, payload);
      state_.add_outgoing(s.seq, s.compare_add, now + std::chrono::milliseconds(timeout_ms_));
      break;
    case OpKind::kReleaseRemote:
      wire::encode_release(memory, payload);
      break;
    default:
      wire::encode_token(memory, payload);
      break;
  }
}

void RemoteMemoryAgent::answer(const Submission& s) {
  AgentState::Served* served = state_.waiting(s.compare_add);
  if (served == nullptr) {
    throw RdmaError(ErrorKind::kIllegalArgument,
                    "no allocation request " + std::to_string(s.compare_add) + " of the peer waits for an answer");
  }
  wire::AgentReply reply{served->id, static_cast<wire::AgentStatus>(s.immediate), s.rkey, s.remote_address};
  if (reply.status == wire::AgentStatus::kGranted) {
    served->granted = true;
    served->address = s.remote_address;
    served->rkey = s.rkey;
  } else {
    reply.status = wire::AgentStatus::kFailed;
    reply.address_or_detail = s.swap;
    state_.forget(served);
  }
  answer_peer(reply);
}

void RemoteMemoryAgent::answer_peer(const wire::AgentReply& reply) {
  uint8_t payload[wire::kControlPayloadSize] = {};
  wire::encode_agent_reply(reply, payload);
  port_.send_control(wire::MessageType::kAgentReply, payload);
}

std::optional<ProtocolViolation> RemoteMemoryAgent::receive(wire::MessageType type, const uint8_t* payload) {
  switch (type) {
    case wire::MessageType::kAgentRequest:
      return request(payload);
    case wire::MessageType::kAgentReply:
      return reply(payload);
    case wire::MessageType::kAgentRelease:
      return release(payload);
    default:
      return token(payload);
  }
}

// The peer asks us to allocate memory for it: refused at once over the quota, else Java allocates.
std::optional<ProtocolViolation> RemoteMemoryAgent::request(const uint8_t* payload) {
  wire::AgentRequest request;
  if (!wire::decode_agent_request(payload, &request)) return ProtocolViolation::kBadControlMessage;
  if (state_.has_waiting(request.id)) return ProtocolViolation::kDuplicateRequest;
  wire::AgentStatus admitted = state_.admit(request.id, request.size);
  if (admitted != wire::AgentStatus::kGranted) {
    answer_peer(wire::AgentReply{request.id, admitted, 0, state_.limit_of(admitted)});
    return std::nullopt;
  }
  port_.report(make_record(EventKind::kAgentRequest, key_, static_cast<int32_t>(request.access), 0,
                           static_cast<int64_t>(request.id), static_cast<int64_t>(request.size)));
  return std::nullopt;
}

// The peer answers a request of ours. A grant we no longer wait for (timed out) is released at once.
std::optional<ProtocolViolation> RemoteMemoryAgent::reply(const uint8_t* payload) {
  wire::AgentReply reply;
  if (!wire::decode_agent_reply(payload, &reply)) return ProtocolViolation::kBadControlMessage;
  AgentState::Outgoing* request = state_.find_outgoing(reply.id);
  if (request == nullptr) return ProtocolViolation::kUnknownRequest;
  if (!request->abandoned) {
    port_.report(make_record(EventKind::kAgentReply, key_, static_cast<int32_t>(reply.status),
                             static_cast<int32_t>(reply.rkey), static_cast<int64_t>(reply.id),
                             static_cast<int64_t>(reply.address_or_detail)));
  } else if (reply.status == wire::AgentStatus::kGranted) {
    uint8_t release[wire::kControlPayloadSize] = {};
    wire::encode_release(wire::MemoryToken{reply.address_or_detail, reply.rkey, 0, request->size}, release);
    port_.send_control(wire::MessageType::kAgentRelease, release);
  }
  state_.remove_outgoing(reply.id);
  return std::nullopt;
}

// The peer is done with memory we allocated for it: Java frees it (its key dies with it; where the
// transport checks keys itself, the key dies here already, before any later operation of the peer).
std::optional<ProtocolViolation> RemoteMemoryAgent::release(const uint8_t* payload) {
  wire::MemoryToken release;
  if (!wire::decode_release(payload, &release)) return ProtocolViolation::kBadControlMessage;
  AgentState::Served* served = state_.granted(release.address, release.rkey, release.length);
  if (served == nullptr) return ProtocolViolation::kUnknownAllocation;
  state_.forget(served);
  port_.revoke_remote_key(release.rkey);
  port_.report(make_record(EventKind::kAgentRelease, key_, 0, static_cast<int32_t>(release.rkey),
                           static_cast<int64_t>(release.address), static_cast<int64_t>(release.length)));
  return std::nullopt;
}

// Access to the peer's memory, for the handler, in message order.
std::optional<ProtocolViolation> RemoteMemoryAgent::token(const uint8_t* payload) {
  wire::MemoryToken token;
  if (!wire::decode_token(payload, &token)) return ProtocolViolation::kBadControlMessage;
  port_.report_in_order(make_record(EventKind::kToken, key_, static_cast<int32_t>(token.access),
                                    static_cast<int32_t>(token.rkey), static_cast<int64_t>(token.address),
                                    static_cast<int64_t>(token.length)));
  return std::nullopt;
}

void RemoteMemoryAgent::expire(Clock::time_point now) {
  for (AgentState::Outgoing& request : state_.outgoing()) {
    if (request.abandoned || now < request.deadline) continue;
    request.abandoned = true;
    port_.report(make_record(EventKind::kAgentReply, key_, static_cast<int32_t>(wire::AgentStatus::kTimedOut), 0,
                             static_cast<int64_t>(request.id), static_cast<int64_t>(timeout_ms_)));
  }
}

}  // namespace jrdma
