// RAII owner of a completion queue bound to a completion channel. Tracks the CQ events it has
// received but not yet acknowledged: ibv_destroy_cq blocks until all of them are acked.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>

namespace jrdma::verbs {

class CompletionQueue {
 public:
  CompletionQueue(ibv_context* context, int entries, ibv_comp_channel* channel);
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
  // could overrun it, since an overrun loses completions silently. Loop thread only.
  void reserve(int entries);
  void unreserve(int entries) noexcept { reserved_ -= entries; }

 private:
  int reserved_ = 0;
  static constexpr unsigned kAckBatch = 64;
  ibv_cq* cq_ = nullptr;
  unsigned unacked_events_ = 0;
  std::atomic<int> capacity_{0};
  std::atomic<int> resizes_{0};
};

}  // namespace jrdma::verbs
