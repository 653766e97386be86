#include "protocol/rendezvous_transfers.h"

#include <string>

#include "base/error.h"

namespace jrdma {

std::optional<TransferViolation> RendezvousTransfers::answered(const uint8_t* payload) {
  wire::RendezvousDone done;
  if (!wire::decode_done(payload, &done)) return TransferViolation{ProtocolViolation::kBadControlMessage};
  OutgoingTransfer t;
  if (!outgoing_.remove(done.id, &t)) return TransferViolation{ProtocolViolation::kUnknownTransfer};
  port_.revoke(t.exposure);
  int32_t status = 0;
  if (done.status == wire::RendezvousStatus::kBufferTooSmall)
    status = static_cast<int32_t>(OpStatus::kPeerBufferTooSmall);
  if (done.status == wire::RendezvousStatus::kReceiverFailed)
    status = static_cast<int32_t>(OpStatus::kPeerCouldNotReceive);
  port_.outgoing_ended(t.ticket, status, static_cast<int64_t>(done.detail));
  return std::nullopt;
}

std::optional<TransferViolation> RendezvousTransfers::check_start(const uint8_t* payload, uint64_t max_message,
                                                                  wire::RendezvousStart* start) const {
  if (!wire::decode_start(payload, start)) return TransferViolation{ProtocolViolation::kBadControlMessage};
  if (start->length == 0 || start->length > max_message) {
    return TransferViolation{ProtocolViolation::kTransferTooLong, static_cast<int64_t>(start->length)};
  }
  if (incoming_.size() >= limits_.incoming) return TransferViolation{ProtocolViolation::kTooManyTransfers};
  return std::nullopt;
}

void RendezvousTransfers::receive(uint64_t id, const wire::RendezvousStart& start, const PostedReceive* into) {
  IncomingTransfer t;
  t.id = id;
  t.source = start.address;
  t.rkey = start.rkey;
  t.length = start.length;
  if (into != nullptr) {
    t.into_receive = true;
    t.destination = into->address;
    t.lkey = into->lkey;
  }
  incoming_.add(t);
  admit_waiting();
}

void RendezvousTransfers::admit_waiting() {
  for (IncomingTransfer& t : incoming_.all()) {
    if (t.stage != IncomingTransfer::Stage::kWaitingBudget) continue;
    if (limits_.budget != nullptr) {
      if (!limits_.budget->try_take(t.length, key_)) return;  // admitted again once bytes come back
      t.budget_taken = true;
    }
    if (t.into_receive) {
      t.stage = IncomingTransfer::Stage::kReading;
    } else {
      t.stage = IncomingTransfer::Stage::kWaitingBuffer;
      port_.needs_buffer(t.id, t.length);
    }
  }
}

void RendezvousTransfers::pump() {
  for (IncomingTransfer& t : incoming_.all()) {
    if (t.stage != IncomingTransfer::Stage::kReading) continue;
    while (t.next_offset < t.length) {
      if (reads_in_flight_ >= limits_.max_reads) return;
      TransferRead read;
      read.transfer = t.id;
      read.local_address = t.destination + t.next_offset;
      read.lkey = t.lkey;
      read.remote_address = t.source + t.next_offset;
      read.rkey = t.rkey;
      read.length = static_cast<uint32_t>(std::min<uint64_t>(limits_.read_chunk, t.length - t.next_offset));
      if (!port_.chain_read(read)) return;  // no send slot: pumped again when one completes
      t.next_offset += read.length;
      ++t.reads_in_flight;
      ++reads_in_flight_;
    }
  }
}

void RendezvousTransfers::read_done(uint64_t id) {
  if (reads_in_flight_ > 0) --reads_in_flight_;
  IncomingTransfer* t = incoming_.find(id);
  if (t == nullptr) return;
  --t->reads_in_flight;
  if (t->reads_in_flight > 0 || t->next_offset < t->length) return;
  port_.answer_peer(wire::RendezvousDone{id, wire::RendezvousStatus::kDone, 0});
  end_incoming(id, true);
}

void RendezvousTransfers::buffer_given(uint64_t id, uint64_t address, uint32_t lkey, uint64_t length, int64_t detail) {
  IncomingTransfer* t = incoming_.find(id);
  if (t == nullptr || t->stage != IncomingTransfer::Stage::kWaitingBuffer) {
    throw RdmaError(ErrorKind::kIllegalArgument,
                    "no rendezvous transfer " + std::to_string(id) + " waits for a buffer");
  }
  if (length == 0) {            // Java could not allocate it: the sender learns why, nothing is delivered
    port_.forgo_read(t->rkey);  // before the answer, which gives the sender its source back
    port_.answer_peer(wire::RendezvousDone{id, wire::RendezvousStatus::kReceiverFailed, static_cast<uint64_t>(detail)});
    end_incoming(id, false);
    return;
  }
  if (length < t->length) {
    throw RdmaError(ErrorKind::kIllegalArgument, "a buffer of " + std::to_string(length) + " bytes for transfer " +
                                                     std::to_string(id) + " of " + std::to_string(t->length));
  }
  t->destination = address;
  t->lkey = lkey;
  t->stage = IncomingTransfer::Stage::kReading;
}

// A transfer is over (read, or refused by Java): its budget comes back before the port hears of it.
void RendezvousTransfers::end_incoming(uint64_t id, bool delivered) {
  IncomingTransfer t;
  if (!incoming_.remove(id, &t)) return;
  if (t.budget_taken) limits_.budget->give(t.length);
  port_.incoming_ended(id, t.length, delivered);
}

void RendezvousTransfers::clear() {
  for (const OutgoingTransfer& t : outgoing_.all()) port_.revoke(t.exposure);
  outgoing_.clear();
  for (const IncomingTransfer& t : incoming_.all()) {
    if (t.budget_taken) limits_.budget->give(t.length);
  }
  incoming_.clear();
  reads_in_flight_ = 0;
}

}  // namespace jrdma
