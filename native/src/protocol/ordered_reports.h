// The reports of Java's operations, kept in submission order. Most operations finish in posting
// order (a send queue completes in order), but a rendezvous send finishes when the peer answers,
// after operations posted later: their reports wait here until every earlier one is done, so Java
// sees every operation reported exactly once and in the order it was submitted.
// Not thread-safe: the engine's lock.
#pragma once

#include <cstdint>
#include <vector>

#include "protocol/submission.h"

namespace jrdma {

class OrderedReports {
 public:
  explicit OrderedReports(uint32_t capacity) : entries_(capacity) {}

  bool has_room() const noexcept { return size_ < entries_.size(); }
  uint32_t waiting() const noexcept { return size_; }
  // Appends an operation (the caller checked has_room); returns its ticket.
  uint64_t add(uint64_t seq, OpKind kind) noexcept {
    uint64_t ticket = head_ + size_++;
    entries_[ticket % entries_.size()] = Entry{seq, kind, false, 0, 0};
    return ticket;
  }
  void complete(uint64_t ticket, int32_t status, int64_t result) noexcept {
    if (ticket < head_ || ticket >= head_ + size_) return;  // cleared by a close
    Entry& e = entries_[ticket % entries_.size()];
    e.done = true;
    e.status = status;
    e.result = result;
  }
  // Hands every finished report at the head to report(seq, kind, status, result), oldest first.
  template <typename Report>
  void emit_ready(Report&& report) {
    while (size_ > 0) {
      const Entry& e = entries_[head_ % entries_.size()];
      if (!e.done) return;
      report(e.seq, e.kind, e.status, e.result);
      ++head_;
      --size_;
    }
  }
  void clear() noexcept {
    head_ += size_;
    size_ = 0;
  }

 private:
  struct Entry {
    uint64_t seq;
    OpKind kind;
    bool done;
    int32_t status;
    int64_t result;
  };
  std::vector<Entry> entries_;
  uint64_t head_ = 0;  // ticket of the oldest entry
  uint32_t size_ = 0;
};

}  // namespace jrdma
