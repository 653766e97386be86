// The receive side of the channel engine: messages in order, receives the application posted, and
// rendezvous transfers both ways (protocol/rendezvous.h; docs/protocol.md, "Messages of any size").
// Everything a peer sends is checked before it is used: lengths against what we announced, ids
// against the transfers we have, and no memory is asked for before the limits allowed it.
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
      start_incoming_locked(slot, h);
      break;
    case wire::MessageType::kRendezvousDone:
      finish_outgoing_locked(slot);
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

// A START: checked against what we announced before anything is reserved for it.
void ChannelEngine::start_incoming_locked(uint32_t slot, const wire::MessageHeader& h) {
  wire::RendezvousStart start;
  bool well_formed = wire::decode_start(ring_.data(slot) + wire::kHeaderSize, &start);
  ring_.release(slot);  // what it says is copied below
  if (!well_formed) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kBadControlMessage));
  if (start.length == 0 || start.length > local_handshake().max_message) {
    return finish_locked(ClosedCause::kProtocolError, static_cast<int32_t>(ProtocolViolation::kTransferTooLong),
                         static_cast<int64_t>(start.length));
  }
  if (incoming_.size() >= options_.rendezvous) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kTooManyTransfers));
  }
  IncomingTransfer t;
  t.id = h.id;
  t.source = start.address;
  t.rkey = start.rkey;
  t.length = start.length;
  if (!posted_.empty()) {
    PostedReceive receive = posted_.front();
    posted_.pop_front();
    if (start.length > receive.length) {
      // Nothing is read: the receive fails with the size it needed, the sender learns it.
      deliveries_.deliver(
          make_record(EventKind::kReceiveDone, key_, static_cast<int32_t>(ReceiveStatus::kReceiveTooSmall), 0,
                      static_cast<int64_t>(receive.seq), static_cast<int64_t>(start.length)),
          sink_);
      answer_transfer_locked(wire::RendezvousDone{h.id, wire::RendezvousStatus::kBufferTooSmall, receive.length});
      return;
    }
    t.into_receive = true;
    t.destination = receive.address;
    t.lkey = receive.lkey;
    deliveries_.await(h.id, make_record(EventKind::kReceiveDone, key_, static_cast<int32_t>(ReceiveStatus::kReceived),
                                        static_cast<int32_t>(start.length), static_cast<int64_t>(receive.seq),
                                        static_cast<int64_t>(h.id)));
  } else {
    deliveries_.await(h.id, make_record(EventKind::kLargeMessage, key_, 0, static_cast<int32_t>(start.length),
                                        static_cast<int64_t>(h.id)));
  }
  incoming_.add(t);
  admit_waiting_locked();
}

// Transfers start in arrival order as the context's receive budget lets them.
void ChannelEngine::admit_waiting_locked() {
  for (IncomingTransfer& t : incoming_.all()) {
    if (t.stage != IncomingTransfer::Stage::kWaitingBudget) continue;
    if (options_.budget != nullptr) {
      if (!options_.budget->try_take(t.length, key_)) return;  // retry_budget() once bytes come back
      t.budget_taken = true;
    }
    if (t.into_receive) {
      t.stage = IncomingTransfer::Stage::kReading;
    } else {
      t.stage = IncomingTransfer::Stage::kWaitingBuffer;
      sink_.emit(make_record(EventKind::kTransferNeedsBuffer, key_, 0, 0, static_cast<int64_t>(t.id),
                             static_cast<int64_t>(t.length)));
    }
  }
}

void ChannelEngine::retry_budget() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kClosed) return;
  admit_waiting_locked();
  pump_transfers_locked();
  flush_locked();
}

// READs for the transfers being read, in chunks, no more outstanding than the queue pair allows.
void ChannelEngine::pump_transfers_locked() {
  if (state_ != State::kOpen) return;
  for (IncomingTransfer& t : incoming_.all()) {
    if (t.stage != IncomingTransfer::Stage::kReading) continue;
    while (t.next_offset < t.length && reads_in_flight_ < options_.max_reads && window_.has_free_slot()) {
      uint64_t chunk = std::min<uint64_t>(options_.read_chunk, t.length - t.next_offset);
      WorkRequest wr{};
      wr.kind = OpKind::kTransferRead;
      wr.slot = window_.take(PostedOp{t.id, OpKind::kTransferRead, 0});
      wr.local_address = t.destination + t.next_offset;
      wr.length = static_cast<uint32_t>(chunk);
      wr.lkey = t.lkey;
      wr.remote_address = t.source + t.next_offset;
      wr.rkey = t.rkey;
      chain_.push_back(wr);
      t.next_offset += chunk;
      ++t.reads_in_flight;
      ++reads_in_flight_;
    }
    if (reads_in_flight_ >= options_.max_reads || !window_.has_free_slot()) return;
  }
}

void ChannelEngine::read_done_locked(uint64_t id) {
  if (reads_in_flight_ > 0) --reads_in_flight_;
  IncomingTransfer* t = incoming_.find(id);
  if (t == nullptr) return;
  --t->reads_in_flight;
  if (t->reads_in_flight > 0 || t->next_offset < t->length) return;
  answer_transfer_locked(wire::RendezvousDone{id, wire::RendezvousStatus::kDone, 0});
  count_received_locked(t->length, true);
  end_incoming_locked(id, true);
}

void ChannelEngine::count_received_locked(uint64_t length, bool rendezvous) noexcept {
  counters_.add(Counter::kMessagesReceived);
  counters_.add(Counter::kBytesReceived, length);
  if (rendezvous) counters_.add(Counter::kRendezvousReceived);
}

// A transfer is over (read, or refused by Java): its budget comes back, its delivery may go out.
void ChannelEngine::end_incoming_locked(uint64_t id, bool delivered) {
  IncomingTransfer t;
  if (!incoming_.remove(id, &t)) return;
  if (t.budget_taken) options_.budget->give(t.length);
  deliveries_.ready(id, delivered, sink_);
}

// A DONE from the peer: the transfer's source is revoked and the send reported.
void ChannelEngine::finish_outgoing_locked(uint32_t slot) {
  wire::RendezvousDone done;
  bool well_formed = wire::decode_done(ring_.data(slot) + wire::kHeaderSize, &done);
  ring_.release(slot);
  if (!well_formed) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kBadControlMessage));
  OutgoingTransfer t;
  if (!outgoing_.remove(done.id, &t)) {
    return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kUnknownTransfer));
  }
  transport_->revoke(t.exposure);
  int32_t status = kStatusSuccess;
  if (done.status == wire::RendezvousStatus::kBufferTooSmall)
    status = static_cast<int32_t>(OpStatus::kPeerBufferTooSmall);
  if (done.status == wire::RendezvousStatus::kReceiverFailed)
    status = static_cast<int32_t>(OpStatus::kPeerCouldNotReceive);
  reports_.complete(t.ticket, status, static_cast<int64_t>(done.detail));
  emit_reports_locked();
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
  IncomingTransfer* t = incoming_.find(s.compare_add);
  if (t == nullptr || t->stage != IncomingTransfer::Stage::kWaitingBuffer) {
    throw RdmaError(ErrorKind::kIllegalArgument,
                    "no rendezvous transfer " + std::to_string(s.compare_add) + " waits for a buffer");
  }
  if (s.length == 0) {  // Java could not allocate it: the sender learns why, nothing is delivered
    answer_transfer_locked(wire::RendezvousDone{t->id, wire::RendezvousStatus::kReceiverFailed, s.swap});
    end_incoming_locked(t->id, false);
    drain_queue_locked();
    return;
  }
  if (s.length < t->length) {
    throw RdmaError(ErrorKind::kIllegalArgument, "a buffer of " + std::to_string(s.length) + " bytes for transfer " +
                                                     std::to_string(t->id) + " of " + std::to_string(t->length));
  }
  t->destination = s.local_address;
  t->lkey = s.lkey;
  t->stage = IncomingTransfer::Stage::kReading;
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
