// The remote-memory agent in the channel engine (protocol/agent.h; docs/protocol.md, "Remote-memory
// agent"): asking the peer to allocate memory for us and matching its answers to our requests by
// id, with a deadline; serving the peer's requests within a quota, with Java allocating the memory;
// releases both ways; and tokens, memory access either side hands the other. Every field from the
// peer is checked before it is used, and a request over the quota is refused before Java is asked.
#include "base/error.h"
#include "protocol/channel_engine.h"

namespace jrdma {

void ChannelEngine::check_agent_message(const Submission& s) {
  auto kind = static_cast<OpKind>(s.kind);
  bool access_ok = kind == OpKind::kReleaseRemote ||
                   (s.immediate != 0 && (s.immediate & ~static_cast<uint32_t>(wire::kAllRemoteAccess)) == 0);
  if (s.compare_add == 0 || !access_ok) {
    throw RdmaError(ErrorKind::kIllegalArgument, std::string(op_verb(kind)) + " of " + std::to_string(s.compare_add) +
                                                     " bytes with access bits " + std::to_string(s.immediate));
  }
}

// An allocation request, a release or a token of Java's: one control message each. The request
// waits for the peer's answer (its deadline counts from here); the others are reported when sent.
void ChannelEngine::take_agent_message_locked(const Submission& s, uint64_t ticket) {
  auto kind = static_cast<OpKind>(s.kind);
  wire::MessageType type = kind == OpKind::kAllocateRemote  ? wire::MessageType::kAgentRequest
                           : kind == OpKind::kReleaseRemote ? wire::MessageType::kAgentRelease
                                                            : wire::MessageType::kToken;
  uint32_t slot = take_message_slot_locked(kind, s.seq, ticket, type, wire::kControlPayloadSize);
  uint8_t* payload = header_slot(slot) + wire::kHeaderSize;
  wire::MemoryToken memory{s.remote_address, s.rkey, s.immediate, s.compare_add};
  switch (kind) {
    case OpKind::kAllocateRemote:
      wire::encode_agent_request(wire::AgentRequest{s.seq, s.immediate, s.compare_add}, payload);
      agent_.add_outgoing(s.seq, s.compare_add,
                          std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.agent_timeout_ms));
      break;
    case OpKind::kReleaseRemote:
      wire::encode_release(memory, payload);
      break;
    default:
      wire::encode_token(memory, payload);
      break;
  }
  chain_control_locked(slot, wire::kControlPayloadSize);
}

// Java allocated (or could not allocate) what the peer asked for: the answer goes out.
void ChannelEngine::answer_agent_locked(const Submission& s) {
  if (state_ == State::kClosed) return;  // Java frees the memory with the channel
  AgentState::Served* served = agent_.waiting(s.compare_add);
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
    agent_.forget(served);
  }
  ControlMessage control{wire::MessageType::kAgentReply, {}};
  wire::encode_agent_reply(reply, control.payload);
  controls_.push_back(control);
  drain_queue_locked();
}

void ChannelEngine::receive_agent_locked(uint32_t slot, const wire::MessageHeader& h) {
  uint8_t payload[wire::kControlPayloadSize];
  std::copy(ring_.data(slot) + wire::kHeaderSize, ring_.data(slot) + wire::kHeaderSize + sizeof payload, payload);
  ring_.release(slot);  // what it says is copied
  switch (h.type) {
    case wire::MessageType::kAgentRequest:
      return agent_request_locked(payload);
    case wire::MessageType::kAgentReply:
      return agent_reply_locked(payload);
    case wire::MessageType::kAgentRelease:
      return agent_release_locked(payload);
    default:
      return token_locked(payload);
  }
}

// The peer asks us to allocate memory for it: refused at once over the quota, else Java allocates.
void ChannelEngine::agent_request_locked(const uint8_t* payload) {
  wire::AgentRequest request;
  if (!wire::decode_agent_request(payload, &request)) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kBadControlMessage));
  }
  if (agent_.has_waiting(request.id)) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kDuplicateRequest));
  }
  wire::AgentStatus admitted = agent_.admit(request.id, request.size);
  if (admitted != wire::AgentStatus::kGranted) {
    ControlMessage control{wire::MessageType::kAgentReply, {}};
    wire::encode_agent_reply(wire::AgentReply{request.id, admitted, 0, agent_.limit_of(admitted)}, control.payload);
    controls_.push_back(control);
    return;
  }
  sink_.emit(make_record(EventKind::kAgentRequest, key_, static_cast<int32_t>(request.access), 0,
                         static_cast<int64_t>(request.id), static_cast<int64_t>(request.size)));
}

// The peer answers a request of ours. A grant we no longer wait for (timed out) is released at once.
void ChannelEngine::agent_reply_locked(const uint8_t* payload) {
  wire::AgentReply reply;
  if (!wire::decode_agent_reply(payload, &reply)) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kBadControlMessage));
  }
  AgentState::Outgoing* request = agent_.find_outgoing(reply.id);
  if (request == nullptr) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kUnknownRequest));
  if (!request->abandoned) {
    sink_.emit(make_record(EventKind::kAgentReply, key_, static_cast<int32_t>(reply.status),
                           static_cast<int32_t>(reply.rkey), static_cast<int64_t>(reply.id),
                           static_cast<int64_t>(reply.address_or_detail)));
  } else if (reply.status == wire::AgentStatus::kGranted) {
    ControlMessage control{wire::MessageType::kAgentRelease, {}};
    wire::encode_release(wire::MemoryToken{reply.address_or_detail, reply.rkey, 0, request->size}, control.payload);
    controls_.push_back(control);
  }
  agent_.remove_outgoing(reply.id);
}

// The peer is done with memory we allocated for it: Java frees it (its key dies with it; where the
// transport checks keys itself, the key dies here already, before any later operation of the peer).
void ChannelEngine::agent_release_locked(const uint8_t* payload) {
  wire::MemoryToken release;
  if (!wire::decode_release(payload, &release)) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kBadControlMessage));
  }
  AgentState::Served* served = agent_.granted(release.address, release.rkey, release.length);
  if (served == nullptr) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kUnknownAllocation));
  agent_.forget(served);
  if (transport_ != nullptr) transport_->revoke_remote_key(release.rkey);
  sink_.emit(make_record(EventKind::kAgentRelease, key_, 0, static_cast<int32_t>(release.rkey),
                         static_cast<int64_t>(release.address), static_cast<int64_t>(release.length)));
}

// Access to the peer's memory, for the handler, in message order.
void ChannelEngine::token_locked(const uint8_t* payload) {
  wire::MemoryToken token;
  if (!wire::decode_token(payload, &token)) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kBadControlMessage));
  }
  deliveries_.deliver(
      make_record(EventKind::kToken, key_, static_cast<int32_t>(token.access), static_cast<int32_t>(token.rkey),
                  static_cast<int64_t>(token.address), static_cast<int64_t>(token.length)),
      sink_);
}

// Requests the peer has not answered in time fail with kTimedOut; a late answer is not reported.
void ChannelEngine::expire_agent_requests_locked(std::chrono::steady_clock::time_point now) {
  for (AgentState::Outgoing& request : agent_.outgoing()) {
    if (request.abandoned || now < request.deadline) continue;
    request.abandoned = true;
    sink_.emit(make_record(EventKind::kAgentReply, key_, static_cast<int32_t>(wire::AgentStatus::kTimedOut), 0,
                           static_cast<int64_t>(request.id), static_cast<int64_t>(options_.agent_timeout_ms)));
  }
}

}  // namespace jrdma
