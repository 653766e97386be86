// What the application gets from a channel, in message order, and the receives it posted for the
// next messages. Not thread-safe: the engine's lock guards them.
#pragma once

#include <cstdint>
#include <deque>

#include "protocol/event_record.h"

namespace jrdma {

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
