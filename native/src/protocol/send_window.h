// The send side of a channel: which send slots are in flight, in posting order, and which requests
// ask for a completion. RC completes a send queue in order, so the completion of slot s finishes
// every request posted before s too (selective signaling). Not thread-safe: the engine's lock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/submission.h"

namespace jrdma {

struct PostedOp {
  uint64_t seq = 0;  // Java's sequence number; a kTransferRead's transfer id; else unused
  OpKind kind = OpKind::kSend;
  uint64_t ticket = 0;  // Java operations: where its report waits (OrderedReports)
};

class SendWindow {
 public:
  SendWindow(uint32_t depth, uint32_t signal_interval);

  bool has_free_slot() const noexcept { return free_count_ > 0; }
  uint32_t in_flight() const noexcept { return order_size_; }
  // Takes a free slot for op (the caller checked has_free_slot) and appends it to the posting order.
  uint32_t take(const PostedOp& op) noexcept;
  // Whether the next request of a chain asks for a completion: every signal_interval-th across
  // chains, and always the last of a chain (so no request waits for a completion that never comes).
  bool signal_next(bool last_of_chain) noexcept;
  // Whether slot is in flight (a completion for anything else is late: the channel was reset).
  bool posted(uint32_t slot) const noexcept { return slot < ops_.size() && in_use_[slot]; }

  // Finishes, in posting order, every request up to and including slot; fn(slot, op, is_last).
  template <typename Fn>
  void complete_through(uint32_t slot, Fn&& fn) {
    while (order_size_ > 0) {
      uint32_t done = order_[order_head_];
      order_head_ = (order_head_ + 1) % depth_;
      --order_size_;
      in_use_[done] = false;
      free_[free_count_++] = done;
      fn(done, ops_[done], done == slot);
      if (done == slot) return;
    }
  }

  void clear() noexcept;
  // The slots in flight in posting order, as "slot:VERB ..." (diagnostics).
  std::string describe() const;

 private:
  uint32_t depth_;
  uint32_t signal_interval_;
  uint32_t unsignaled_ = 0;
  std::vector<PostedOp> ops_;
  std::vector<bool> in_use_;
  std::vector<uint32_t> free_;
  uint32_t free_count_;
  std::vector<uint32_t> order_;  // ring of slots in posting order
  uint32_t order_head_ = 0;
  uint32_t order_size_ = 0;
};

}  // namespace jrdma
