// The channel engine's side of the rendezvous transfers (protocol/rendezvous_transfers.h): it
// carries their messages — a START in a message slot for a send of ours, the peer's STARTs and
// DONEs out of the receive ring, DONEs as control messages — their READs in its chain, and closes
// the channel for what the transfers find to be a violation.
#include "base/error.h"
#include "protocol/channel_engine.h"

namespace jrdma {

// A message longer than the peer's eager payload: exactly its bytes become readable by the peer,
// and a START tells it where. The send is reported when the peer answers (outgoing_ended).
void ChannelEngine::take_rendezvous_send_locked(const Submission& s, uint64_t ticket) {
  ChannelTransport::Exposure exposure;
  try {
    exposure = transport_->expose_for_read(s.local_address, s.length);
  } catch (const RdmaError& e) {
    reports_.complete(ticket, static_cast<int32_t>(OpStatus::kExposeFailed), e.errno_value());
    return;
  }
  count_posted_locked(OpKind::kSend, s.length);
  counters_.add(Counter::kRendezvousSent);
  uint32_t slot = take_message_slot_locked(OpKind::kControl, s.seq, ticket, wire::MessageType::kRendezvousStart,
                                           wire::kControlPayloadSize);
  uint8_t* header = header_slot(slot);
  wire::encode_start(wire::RendezvousStart{s.local_address, exposure.rkey, s.length}, header + wire::kHeaderSize);
  rendezvous_.started(wire::decode_id(header), ticket, exposure.handle);
  chain_control_locked(slot, wire::kControlPayloadSize);
}

// A START of the peer's: checked before anything is reserved, then read into the first posted
// receive (which must be big enough) or a buffer Java allocates.
void ChannelEngine::receive_start_locked(uint32_t slot, const wire::MessageHeader& h) {
  wire::RendezvousStart start;
  std::optional<TransferViolation> violation =
      rendezvous_.check_start(ring_.data(slot) + wire::kHeaderSize, local_handshake().max_message, &start);
  ring_.release(slot);  // what it says is copied
  if (violation) {
    return finish_locked(ClosedCause::kProtocolError, static_cast<int32_t>(violation->violation), violation->detail);
  }
  if (posted_.empty()) {
    deliveries_.await(h.id, make_record(EventKind::kLargeMessage, key_, 0, static_cast<int32_t>(start.length),
                                        static_cast<int64_t>(h.id)));
    return rendezvous_.receive(h.id, start, nullptr);
  }
  PostedReceive receive = posted_.front();
  posted_.pop_front();
  if (start.length > receive.length) {
    // Nothing is read: the receive fails with the size it needed, the sender learns it.
    forgo_read(start.rkey);
    deliveries_.deliver(
        make_record(EventKind::kReceiveDone, key_, static_cast<int32_t>(ReceiveStatus::kReceiveTooSmall), 0,
                    static_cast<int64_t>(receive.seq), static_cast<int64_t>(start.length)),
        sink_);
    return answer_peer(wire::RendezvousDone{h.id, wire::RendezvousStatus::kBufferTooSmall, receive.length});
  }
  deliveries_.await(h.id, make_record(EventKind::kReceiveDone, key_, static_cast<int32_t>(ReceiveStatus::kReceived),
                                      static_cast<int32_t>(start.length), static_cast<int64_t>(receive.seq),
                                      static_cast<int64_t>(h.id)));
  rendezvous_.receive(h.id, start, &receive);
}

// A DONE of the peer's: a send of ours is over.
void ChannelEngine::receive_done_locked(uint32_t slot) {
  std::optional<TransferViolation> violation = rendezvous_.answered(ring_.data(slot) + wire::kHeaderSize);
  ring_.release(slot);  // what it says was used above
  if (violation) protocol_error_locked(static_cast<int32_t>(violation->violation));
}

void ChannelEngine::retry_budget() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kClosed) return;
  rendezvous_.admit_waiting();
  pump_transfers_locked();
  flush_locked();
}

bool ChannelEngine::chain_read(const TransferRead& read) {
  if (!window_.has_free_slot()) return false;
  WorkRequest wr{};
  wr.kind = OpKind::kTransferRead;
  wr.slot = window_.take(PostedOp{read.transfer, OpKind::kTransferRead, 0});
  wr.local_address = read.local_address;
  wr.length = read.length;
  wr.lkey = read.lkey;
  wr.remote_address = read.remote_address;
  wr.rkey = read.rkey;
  chain_.push_back(wr);
  return true;
}

void ChannelEngine::answer_peer(const wire::RendezvousDone& done) {
  ControlMessage control{wire::MessageType::kRendezvousDone, {}};
  wire::encode_done(done, control.payload);
  controls_.push_back(control);
}

void ChannelEngine::needs_buffer(uint64_t id, uint64_t length) {
  sink_.emit(
      make_record(EventKind::kTransferNeedsBuffer, key_, 0, 0, static_cast<int64_t>(id), static_cast<int64_t>(length)));
}

void ChannelEngine::incoming_ended(uint64_t id, uint64_t length, bool delivered) {
  if (delivered) count_received_locked(length, true);
  deliveries_.ready(id, delivered, sink_);
}

void ChannelEngine::outgoing_ended(uint64_t ticket, int32_t status, int64_t detail) {
  reports_.complete(ticket, status, detail);
  emit_reports_locked();
}

void ChannelEngine::revoke(uint64_t exposure) {
  if (transport_ != nullptr) transport_->revoke(exposure);
}

void ChannelEngine::forgo_read(uint32_t rkey) {
  if (transport_ != nullptr) transport_->forgo_read(rkey);
}

}  // namespace jrdma
