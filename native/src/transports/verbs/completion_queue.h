// RAII owner of a completion queue bound to a completion channel. Tracks the CQ events it has
// received but not yet acknowledged: ibv_destroy_cq blocks until all of them are acked.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>

namespace jrdma::verbs {

class CompletionQueue {
 public:
  // `max_entries`: the device's max_cqe, the most the queue may grow to.
  CompletionQueue(ibv_context* context, int entries, int max_entries, ibv_comp_channel* channel);
  ~CompletionQueue();
  CompletionQueue(const CompletionQueue&) = delete;
  CompletionQueue& operator=(const CompletionQueue&) = delete;

  ibv_cq* get() const noexcept { return cq_; }
  // Entries the CQ holds, and how often it grew; any thread (JMX reads them).
  int capacity() const noexcept { return capacity_.load(std::memory_order_relaxed); }
  int resizes() const noexcept { return resizes_.load(std::memory_order_relaxed); }

  // Asks for a notification on the next completion. Throws on failure.
  void arm();
  // Counts one event taken with ibv_get_cq_event; acknowledges in batches (acks take a lock).
  void event_received() noexcept;
  int release() noexcept;

  // Entries promised to queue pairs on this CQ: it grows (ibv_resize_cq) before a queue pair
  // could overrun it, since an overrun loses completions silently — doubling, but never past the
  // device's max_cqe. Loop thread only. Beyond max_cqe: RdmaError with ENOSPC (the context holds
  // no more channels of this queue depth).
  void reserve(int entries);
  int max_entries() const noexcept { return max_entries_; }
  int reserved() const noexcept { return reserved_; }
  void unreserve(int entries) noexcept { reserved_ -= entries; }

 private:
  int reserved_ = 0;
  int max_entries_ = 0;  // the device's max_cqe
  static constexpr unsigned kAckBatch = 64;
  ibv_cq* cq_ = nullptr;
  unsigned unacked_events_ = 0;
  std::atomic<int> capacity_{0};
  std::atomic<int> resizes_{0};
};

}  // namespace jrdma::verbs
