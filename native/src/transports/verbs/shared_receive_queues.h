// A context's shared receive queues, one per eager size its channels use (a buffer must hold the
// largest message a channel of that size receives; most contexts have one size). Created with the
// first channel of a size, kept until the context closes. Thread-safe: channels are created on any
// thread; the loop finds a queue by the number its completions carry.
#pragma once

#include <infiniband/verbs.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "transports/verbs/shared_receive_queue.h"

namespace jrdma::verbs {

class SharedReceiveQueues {
 public:
  // `buffers`: each queue's first buffers (RdmaConfig.sharedReceiveBuffers; 0: no shared queues,
  // each queue pair has its own receive queue); `capacity`: the most a queue grows to.
  SharedReceiveQueues(ibv_pd* pd, uint32_t buffers, uint32_t capacity)
      : pd_(pd), buffers_(buffers), capacity_(capacity) {}
  ~SharedReceiveQueues() { release(); }
  SharedReceiveQueues(const SharedReceiveQueues&) = delete;
  SharedReceiveQueues& operator=(const SharedReceiveQueues&) = delete;

  bool enabled() const noexcept { return buffers_ > 0 && capacity_ > 0; }
  // The queue for channels of that eager size, created now if there is none. Null when disabled.
  // Throws RdmaError when it cannot be created.
  SharedReceiveQueue* for_eager(uint32_t eager);
  // By the number in a completion's work request id; null for a number never handed out.
  SharedReceiveQueue* at(uint32_t index) const noexcept;
  // Buffers of all queues together (diagnostics and tests).
  uint32_t buffers() const noexcept;
  // Every buffer handed back in a batch, posted (loop thread, before the batch's credits go back);
  // a queue reported low grows.
  void post_given_back();
  // Destroys the queues (after every queue pair that used them, before the protection domain).
  void release() noexcept;

 private:
  ibv_pd* pd_;
  const uint32_t buffers_;
  const uint32_t capacity_;
  static constexpr uint32_t kMaxQueues = 16;  // eager sizes in one context
  std::mutex mutex_;                          // creating a queue
  // By number; a slot is written once (under the lock) and read by the loop without it.
  std::array<std::atomic<SharedReceiveQueue*>, kMaxQueues> queues_{};
  std::atomic<uint32_t> count_{0};
};

}  // namespace jrdma::verbs
