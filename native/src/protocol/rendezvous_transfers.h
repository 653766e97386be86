// The rendezvous transfers of one channel (docs/protocol.md, "Messages of any size"), both ways.
//
// A message longer than the peer's eager payload is announced by a RENDEZVOUS_START that carries
// its length and a key to exactly its bytes; the receiver READs it straight into its destination
// (a receive the application posted, or a buffer Java allocates once the limits allowed it) and
// answers RENDEZVOUS_DONE, which revokes the key and completes the sender's operation. Every START
// and DONE is checked against what we announced and what we sent before anything is reserved.
//
// It knows no channel: the READs it issues, its answers, what it asks Java and what it reports go
// through a RendezvousPort (the channel engine, which carries them). Not thread-safe: the engine's
// lock guards it. Host-tested alone (rendezvous_transfers_test.cc) and through two engines
// (rendezvous_test.cc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "protocol/delivery_queue.h"
#include "protocol/event_record.h"
#include "protocol/receive_budget.h"
#include "wire/control_message.h"

namespace jrdma {

// A send of ours the peer is reading.
struct OutgoingTransfer {
  uint64_t id = 0;        // the START's message id
  uint64_t ticket = 0;    // where the send's report waits (OrderedReports)
  uint64_t exposure = 0;  // the transport's handle of the source's registration
};

// A message of the peer's we are reading.
struct IncomingTransfer {
  enum class Stage { kWaitingBudget, kWaitingBuffer, kReading };
  uint64_t id = 0;  // the START's message id
  uint64_t source = 0;
  uint32_t rkey = 0;
  uint64_t length = 0;
  Stage stage = Stage::kWaitingBudget;
  bool into_receive = false;  // a receive the application posted (else a buffer Java allocates)
  bool budget_taken = false;
  uint64_t destination = 0;
  uint32_t lkey = 0;
  uint64_t next_offset = 0;  // the first byte no READ asked for yet
  uint32_t reads_in_flight = 0;
};

template <typename Transfer>
class TransferTable {
 public:
  std::size_t size() const noexcept { return transfers_.size(); }
  bool empty() const noexcept { return transfers_.empty(); }
  Transfer& add(const Transfer& t) { return transfers_.emplace_back(t); }
  Transfer* find(uint64_t id) noexcept {
    auto it = std::find_if(transfers_.begin(), transfers_.end(), [id](const Transfer& t) { return t.id == id; });
    return it == transfers_.end() ? nullptr : &*it;
  }
  bool remove(uint64_t id, Transfer* out = nullptr) {
    auto it = std::find_if(transfers_.begin(), transfers_.end(), [id](const Transfer& t) { return t.id == id; });
    if (it == transfers_.end()) return false;
    if (out != nullptr) *out = *it;
    transfers_.erase(it);
    return true;
  }
  std::vector<Transfer>& all() noexcept { return transfers_; }
  void clear() noexcept { transfers_.clear(); }

 private:
  std::vector<Transfer> transfers_;  // a handful (the announced limit): a vector beats a map
};

// A READ of one chunk of an incoming transfer.
struct TransferRead {
  uint64_t transfer = 0;  // the START's message id
  uint64_t local_address = 0;
  uint32_t lkey = 0;
  uint64_t remote_address = 0;
  uint32_t rkey = 0;
  uint32_t length = 0;
};

// What the transfers need from their channel.
class RendezvousPort {
 public:
  virtual ~RendezvousPort() = default;
  // The READ joins the channel's next chain; false when no send slot is free (pumped again later).
  virtual bool chain_read(const TransferRead& read) = 0;
  // A RENDEZVOUS_DONE to the peer (sent when a credit allows).
  virtual void answer_peer(const wire::RendezvousDone& done) = 0;
  // Java is asked for a destination of `length` bytes for transfer `id`.
  virtual void needs_buffer(uint64_t id, uint64_t length) = 0;
  // A transfer of the peer's is over: read whole (delivered) or refused by Java.
  virtual void incoming_ended(uint64_t id, uint64_t length, bool delivered) = 0;
  // A send of ours is over: the peer answered with `status` (an OpStatus or success) and `detail`.
  virtual void outgoing_ended(uint64_t ticket, int32_t status, int64_t detail) = 0;
  // The peer must not read a source of ours any more.
  virtual void revoke(uint64_t exposure) = 0;
  // A transfer of the peer's is given up before its bytes were read (the source under `rkey` will
  // not be read): a transport that holds them already (sent ahead) lets them go.
  virtual void forgo_read(uint32_t rkey) = 0;
};

// What makes the channel close: a violation and its detail (e.g. the length announced).
struct TransferViolation {
  ProtocolViolation violation;
  int64_t detail = 0;
};

class RendezvousTransfers {
 public:
  struct Limits {
    uint32_t incoming;      // transfers of the peer's read at a time (announced)
    uint32_t read_chunk;    // bytes per READ
    uint32_t max_reads;     // READs outstanding at a time, over all transfers
    ReceiveBudget* budget;  // the context's bound on bytes being received; null: none
  };

  RendezvousTransfers(uint32_t channel_key, const Limits& limits, RendezvousPort& port)
      : key_(channel_key), limits_(limits), port_(port) {}

  // --- our sends ------------------------------------------------------------------------------
  std::size_t sending() const noexcept { return outgoing_.size(); }
  // A START went out: the peer reads the source `exposure` grants until it answers.
  void started(uint64_t id, uint64_t ticket, uint64_t exposure) {
    outgoing_.add(OutgoingTransfer{id, ticket, exposure});
  }
  // The peer's RENDEZVOUS_DONE (its payload): the source is revoked and the send reported.
  std::optional<TransferViolation> answered(const uint8_t* payload);

  // --- the peer's sends -----------------------------------------------------------------------
  std::size_t receiving() const noexcept { return incoming_.size(); }
  // A START (its payload) is well formed, within `max_message` and the transfers we announced.
  std::optional<TransferViolation> check_start(const uint8_t* payload, uint64_t max_message,
                                               wire::RendezvousStart* start) const;
  // A checked START is read into `into` (a receive the application posted, big enough) or, when
  // null, into a buffer Java allocates; either once the receive budget admits it.
  void receive(uint64_t id, const wire::RendezvousStart& start, const PostedReceive* into);
  // Transfers waiting for the receive budget start in arrival order, as far as it lets them.
  void admit_waiting();
  // READs for the transfers being read, in chunks, as many as max_reads and the port allow.
  void pump();
  // A READ of transfer `id` completed; the last one ends the transfer.
  void read_done(uint64_t id);
  // Java's destination for transfer `id` (length 0: it could not allocate one; `detail` says why).
  // Throws RdmaError(kIllegalArgument) when no transfer of that id waits for one, or it is too small.
  void buffer_given(uint64_t id, uint64_t address, uint32_t lkey, uint64_t length, int64_t detail);

  // The channel closed: sources revoked, budget given back, nothing reported.
  void clear();

 private:
  void end_incoming(uint64_t id, bool delivered);

  const uint32_t key_;
  const Limits limits_;
  RendezvousPort& port_;
  TransferTable<OutgoingTransfer> outgoing_;
  TransferTable<IncomingTransfer> incoming_;
  uint32_t reads_in_flight_ = 0;  // READs of incoming transfers, all of them
};

}  // namespace jrdma
