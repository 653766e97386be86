// The channel engine's side of the remote-memory agent (protocol/remote_memory_agent.h): it carries
// the agent's messages — Java's requests, releases and tokens in message slots, the peer's agent
// messages out of the receive ring, the agent's own answers as control messages — and closes the
// channel for what the agent finds to be a violation.
#include <algorithm>

#include "protocol/channel_engine.h"

namespace jrdma {

// An allocation request, a release or a token of Java's: one control message each. The request
// waits for the peer's answer (its deadline counts from here); the others are reported when sent.
void ChannelEngine::take_agent_message_locked(const Submission& s, uint64_t ticket) {
  auto kind = static_cast<OpKind>(s.kind);
  uint32_t slot =
      take_message_slot_locked(kind, s.seq, ticket, RemoteMemoryAgent::message_type(kind), wire::kControlPayloadSize);
  agent_.encode(s, header_slot(slot) + wire::kHeaderSize, std::chrono::steady_clock::now());
  chain_control_locked(slot, wire::kControlPayloadSize);
}

// Java allocated (or could not allocate) what the peer asked for: the answer goes out.
void ChannelEngine::answer_agent_locked(const Submission& s) {
  if (state_ == State::kClosed) return;  // Java frees the memory with the channel
  agent_.answer(s);
  drain_queue_locked();
}

void ChannelEngine::receive_agent_locked(uint32_t slot, const wire::MessageHeader& h) {
  uint8_t payload[wire::kControlPayloadSize];
  std::copy(ring_.data(slot) + wire::kHeaderSize, ring_.data(slot) + wire::kHeaderSize + sizeof payload, payload);
  ring_.release(slot);  // what it says is copied
  if (std::optional<ProtocolViolation> violation = agent_.receive(h.type, payload)) {
    protocol_error_locked(static_cast<int32_t>(*violation));
  }
}

void ChannelEngine::send_control(wire::MessageType type, const uint8_t* payload) {
  ControlMessage control{type, {}};
  std::copy(payload, payload + wire::kControlPayloadSize, control.payload);
  controls_.push_back(control);
}

void ChannelEngine::revoke_remote_key(uint32_t rkey) {
  if (transport_ != nullptr) transport_->revoke_remote_key(rkey);
}

}  // namespace jrdma
