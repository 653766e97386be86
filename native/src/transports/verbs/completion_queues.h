// The completion queues of a context: all bound to its one completion channel and polled by its loop.
// A device caps a CQ's entries (max_cqe: 32,767 on Soft-RoCE) and each channel reserves 2 x its
// queue depth, so one CQ would cap a context at max_cqe / (2 x depth) channels (127 at depth 128).
// A channel's reservation goes to the first CQ with room (which grows up to max_cqe); when none has
// room, another CQ is created. An added CQ that no queue pair uses any more is destroyed at the
// loop's next tick (release_unused), not at once: the loop may be polling the set then.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <memory>
#include <vector>

#include "transports/verbs/completion_queue.h"

namespace jrdma::verbs {

class CompletionQueues {
 public:
  // The first CQ, `entries` large; others start at the same size. `max_entries`: the device's max_cqe.
  CompletionQueues(ibv_context* context, int entries, int max_entries, ibv_comp_channel* channel);
  CompletionQueues(const CompletionQueues&) = delete;
  CompletionQueues& operator=(const CompletionQueues&) = delete;

  // Reserves `entries` on a CQ that can hold them, creating one if none can. Loop thread only.
  // Throws RdmaError: ENOSPC when `entries` exceed what any CQ of the device holds, the errno of
  // ibv_create_cq / ibv_resize_cq otherwise (the device's max_cq reached, no memory).
  CompletionQueue& reserve(int entries);

  // The CQs in creation order; loop thread only (the set grows on it).
  const std::vector<std::unique_ptr<CompletionQueue>>& all() const noexcept { return queues_; }
  // The CQ whose notification ibv_get_cq_event returned, or null.
  CompletionQueue* find(const ibv_cq* cq) const noexcept;
  // Asks each CQ for a notification on its next completion. Throws on failure.
  void arm_all();
  // Destroys the added CQs that no queue pair uses (their memory goes back); the first stays. Loop
  // thread, between polls. The kernel drops a destroyed CQ's unread notifications.
  void release_unused() noexcept;

  // Entries the CQs hold and how often one grew or was added; any thread (JMX).
  int capacity() const noexcept { return capacity_.load(std::memory_order_relaxed); }
  int resizes() const noexcept { return resizes_.load(std::memory_order_relaxed); }

  // Destroys every CQ (their queue pairs must be gone): the first failing ibv_destroy_cq's status, or 0.
  int release() noexcept;

 private:
  void publish() noexcept;

  ibv_context* context_;
  ibv_comp_channel* channel_;
  int entries_;
  int max_entries_;
  std::vector<std::unique_ptr<CompletionQueue>> queues_;
  int added_ = 0;            // CQs created beyond the first
  int retired_resizes_ = 0;  // resizes of the CQs released since
  std::atomic<int> capacity_{0};
  std::atomic<int> resizes_{0};
};

}  // namespace jrdma::verbs
