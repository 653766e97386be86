// A shared receive queue (ibv_create_srq) that the context's channels of one eager size receive
// through, instead of a receive queue of queueDepth buffers per queue pair (docs/architecture.md,
// "Shared receive queue"). A message lands in one of the queue's buffers; the loop copies it into
// the channel's receive ring at once and gives the buffer back, and all buffers given back in a
// batch of completions are posted again with one call before the batch's credits go back to the
// peers. So the rings are plain memory (not registered: a channel's untouched buffers cost nothing)
// and a context pins one queue's buffers, not depth x eager per channel.
//
// Credits stay exact per channel — a message always has its slot in its channel's ring — but the
// queue holds fewer buffers than all channels' credits together: should a burst from many peers
// outrun it before the loop's next turn, the senders' devices wait and retry (receiver not ready)
// until it re-posted, and the device's low-water event (IBV_EVENT_SRQ_LIMIT_REACHED) makes the
// queue grow (doubling, up to its capacity). The owner's loop thread, except where a method says otherwise.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "context/channel_memory.h"
#include "transports/verbs/memory_region.h"

namespace jrdma::verbs {

class SharedReceiveQueue {
 public:
  // `index` comes back in the key field of the queue's work request ids (work_request_id.h);
  // `buffers` are posted now, `capacity` is the most it grows to. Throws RdmaError naming the call.
  SharedReceiveQueue(ibv_pd* pd, uint32_t index, uint32_t buffer_size, uint32_t buffers, uint32_t capacity);
  ~SharedReceiveQueue();
  SharedReceiveQueue(const SharedReceiveQueue&) = delete;
  SharedReceiveQueue& operator=(const SharedReceiveQueue&) = delete;

  ibv_srq* get() const noexcept { return srq_; }
  uint32_t buffer_size() const noexcept { return buffer_size_; }
  // Buffers registered and in use by the queue (posted or being copied out).
  uint32_t buffers() const noexcept { return buffers_.load(std::memory_order_relaxed); }  // any thread

  // The bytes of a completed receive's buffer (the slot field of its work request id). Null for a
  // number the queue never posted.
  const uint8_t* buffer(uint32_t number) const noexcept {
    return number < addresses_.size() ? addresses_[number] : nullptr;
  }
  // The buffer's completion was handled: it is posted again with the next post_given_back().
  void give_back(uint32_t number) { given_back_.push_back(number); }
  // Posts every buffer given back since the last call, in one chain. Throws RdmaError.
  void post_given_back();
  // The device reported this queue low (IBV_EVENT_SRQ_LIMIT_REACHED), to whichever loop read the
  // device's async events: the queue's own loop grows it at its next post_given_back(). Any thread;
  // a queue that is gone is ignored.
  static void report_low(const ibv_srq* srq) noexcept;
  // Doubles the buffers (up to the capacity) and re-arms the low-water mark, when reported low.
  // Throws RdmaError (the queue keeps what it has; senders wait for re-posts).
  void grow_if_low();

  // Which channel a queue pair belongs to: completions name the queue pair, not the channel.
  // Any thread (queue pairs come and go on the loop thread, the context's close may run elsewhere).
  void attach(uint32_t qp_num, uint32_t channel_key);
  void detach(uint32_t qp_num) noexcept;
  bool channel_of(uint32_t qp_num, uint32_t* channel_key) const noexcept;

 private:
  void add_buffers(uint32_t count);
  void release() noexcept;
  void arm_low_water();

  struct Slab {
    ChannelMemory memory;
    std::unique_ptr<MemoryRegion> region;
  };

  ibv_pd* pd_;
  const uint32_t index_;
  const uint32_t buffer_size_;
  uint32_t capacity_;
  ibv_srq* srq_ = nullptr;
  std::vector<Slab> slabs_;
  std::vector<uint8_t*> addresses_;   // by buffer number
  std::atomic<uint32_t> buffers_{0};  // addresses_.size(), for other threads
  std::atomic<bool> low_{false};      // report_low() said so; grow_if_low() acts
  std::vector<uint32_t> lkeys_;       // by buffer number (its slab's)
  std::vector<uint32_t> given_back_;
  mutable std::mutex owners_mutex_;
  std::unordered_map<uint32_t, uint32_t> owners_;  // qp_num -> channel key
};

}  // namespace jrdma::verbs
