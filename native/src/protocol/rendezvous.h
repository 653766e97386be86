// The rendezvous transfers of one channel (docs/protocol.md, "Messages of any size"), both ways,
// and the order in which received messages reach the application. Not thread-safe: the engine's
// lock guards them.
//
// A message longer than the peer's eager payload is announced by a RENDEZVOUS_START that carries
// its length and a key to exactly its bytes; the receiver READs it straight into its destination
// (a receive the application posted, or a buffer Java allocates once the limits allowed it) and
// answers RENDEZVOUS_DONE, which revokes the key and completes the sender's operation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "protocol/event_record.h"

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

// What the application gets from the channel, in message order: an eager message waits behind a
// large one that arrived before it until that one's bytes are all read.
class DeliveryQueue {
 public:
  bool empty() const noexcept { return queue_.empty(); }
  std::size_t size() const noexcept { return queue_.size(); }

  // Emits the record now when nothing waits ahead of it, else queues it.
  void deliver(const EventRecord& record, EventSink& sink) {
    if (queue_.empty()) {
      sink.emit(record);
    } else {
      queue_.push_back(Entry{record, 0, true, true});
    }
  }
  // A large message: its record goes out once transfer `id` is read (ready()).
  void await(uint64_t id, const EventRecord& record) { queue_.push_back(Entry{record, id, false, true}); }
  // Transfer `id` is complete (emit = false: it was refused; nothing to deliver). Emits what is ready.
  void ready(uint64_t id, bool emit, EventSink& sink) {
    for (Entry& e : queue_) {
      if (!e.ready && e.transfer == id) {
        e.ready = true;
        e.emit = emit;
        break;
      }
    }
    while (!queue_.empty() && queue_.front().ready) {
      if (queue_.front().emit) sink.emit(queue_.front().record);
      queue_.pop_front();
    }
  }
  void clear() noexcept { queue_.clear(); }

 private:
  struct Entry {
    EventRecord record;
    uint64_t transfer;
    bool ready;
    bool emit;
  };
  std::deque<Entry> queue_;
};

// A receive the application posted (OpKind::kReceive): the next message goes there.
struct PostedReceive {
  uint64_t seq = 0;
  uint64_t address = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;
};

}  // namespace jrdma
