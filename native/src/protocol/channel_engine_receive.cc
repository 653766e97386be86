// The receive side of the channel engine: messages in order, receives the application posted, and
// the messages of the rendezvous transfers and the agent handed to their types. Everything a peer
// sends is checked before it is used: lengths against what we announced, credits against what it
// can have, ids against the order of its messages.
#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "protocol/channel_engine.h"

namespace jrdma {

void ChannelEngine::on_receive(uint32_t slot, uint32_t byte_len) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kClosed) return;
  if (!ring_.arrive(slot)) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kUnexpectedReceive));
  keepalive_.heard();  // the peer is alive
  // The first message can overtake the connection-established event on the passive side.
  open_locked();
  wire::MessageHeader h;
  wire::DecodeStatus status = wire::decode_header(ring_.data(slot), byte_len, options_.eager, peer_.credits, &h);
  if (status != wire::DecodeStatus::kOk) return protocol_error_locked(static_cast<int32_t>(status));
  if (credits_ + h.credits > peer_.credits) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kCreditOverflow));
  }
  if (h.id != next_receive_id_)
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kMessageOutOfOrder));
  ++next_receive_id_;
  credits_ += h.credits;
  if (auth_.pending() && h.type != wire::MessageType::kCredit && h.type != wire::MessageType::kAuth) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kNotAuthenticated));
  }
  switch (h.type) {
    case wire::MessageType::kCredit:
      ring_.release(slot);  // nothing for the application: re-post at once
      break;
    case wire::MessageType::kData:
      deliver_data_locked(slot, h);
      break;
    case wire::MessageType::kRendezvousStart:
      receive_start_locked(slot, h);
      break;
    case wire::MessageType::kRendezvousDone:
      receive_done_locked(slot);
      break;
    case wire::MessageType::kAgentRequest:
    case wire::MessageType::kAgentReply:
    case wire::MessageType::kAgentRelease:
    case wire::MessageType::kToken:
      receive_agent_locked(slot, h);
      break;
    case wire::MessageType::kAuth:
      receive_auth_locked(slot);
      break;
  }
  if (state_ == State::kClosed) return;
  pump_transfers_locked();
  drain_queue_locked();
  finish_closing_if_quiet_locked();
}

// An eager message: into the first posted receive if there is one and it fits, else to the handler.
void ChannelEngine::deliver_data_locked(uint32_t slot, const wire::MessageHeader& h) {
  if (!posted_.empty()) {
    PostedReceive receive = posted_.front();
    posted_.pop_front();
    if (h.length <= receive.length) {
      std::memcpy(reinterpret_cast<void*>(receive.address), ring_.data(slot) + wire::kHeaderSize, h.length);
      ring_.release(slot);
      count_received_locked(h.length, false);
      deliveries_.deliver(
          make_record(EventKind::kReceiveDone, key_, static_cast<int32_t>(ReceiveStatus::kReceived),
                      static_cast<int32_t>(h.length), static_cast<int64_t>(receive.seq), static_cast<int64_t>(h.id)),
          sink_);
      return;
    }
    // Too small: that receive fails with the size it needed; the message, already sent, is not lost.
    deliveries_.deliver(
        make_record(EventKind::kReceiveDone, key_, static_cast<int32_t>(ReceiveStatus::kReceiveTooSmall), 0,
                    static_cast<int64_t>(receive.seq), static_cast<int64_t>(h.length)),
        sink_);
  }
  count_received_locked(h.length, false);
  deliveries_.deliver(make_record(EventKind::kMessage, key_, static_cast<int32_t>(slot), static_cast<int32_t>(h.length),
                                  static_cast<int64_t>(h.id)),
                      sink_);
}

void ChannelEngine::count_received_locked(uint64_t length, bool rendezvous) noexcept {
  counters_.add(Counter::kMessagesReceived);
  counters_.add(Counter::kBytesReceived, length);
  if (rendezvous) counters_.add(Counter::kRendezvousReceived);
}

// Java's submissions about receiving: a release, a posted receive, a destination for a transfer.
void ChannelEngine::take_receive_side_locked(const Submission& s) {
  if (state_ == State::kClosed) return;  // the ring and transfers are gone; kChannelClosed reported all
  switch (static_cast<OpKind>(s.kind)) {
    case OpKind::kReleaseReceive:
      if (!ring_.release(s.receive_slot)) {
        throw RdmaError(ErrorKind::kIllegalArgument,
                        "receive slot " + std::to_string(s.receive_slot) + " is not held by the application");
      }
      return;
    case OpKind::kReceive:
      posted_.push_back(PostedReceive{s.seq, s.local_address, s.length, s.lkey});
      return;
    default:
      break;
  }
  // A destination for a transfer (its id in compare_add); none (length 0): Java could not allocate
  // one, the refusal (its reason in swap) goes to the peer.
  rendezvous_.buffer_given(s.compare_add, s.local_address, s.lkey, s.length, static_cast<int64_t>(s.swap));
  if (s.length == 0) drain_queue_locked();
}

void ChannelEngine::on_immediate(uint32_t slot, uint32_t immediate) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kClosed) return;
  if (!ring_.arrive(slot)) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kUnexpectedReceive));
  keepalive_.heard();  // the peer is alive
  open_locked();
  if (auth_.pending()) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kNotAuthenticated));
  sink_.emit(make_record(EventKind::kImmediate, key_, static_cast<int32_t>(slot), static_cast<int32_t>(immediate)));
}

void ChannelEngine::on_receive_error(int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kClosed || status == kStatusFlushed) return;  // flushed: the first failure was reported
  finish_locked(ClosedCause::kOperationFailed, status, 0);
}

}  // namespace jrdma
