#include "transports/verbs/completion_queues.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace jrdma::verbs {

CompletionQueues::CompletionQueues(ibv_context* context, int entries, int max_entries, ibv_comp_channel* channel)
    : context_(context), channel_(channel), entries_(entries) {
  queues_.push_back(std::make_unique<CompletionQueue>(context, entries, max_entries, channel));
  max_entries_ = queues_.front()->max_entries();
  publish();
}

CompletionQueue& CompletionQueues::reserve(int entries) {
  if (entries > max_entries_) {
    throw RdmaError(ErrorKind::kNative,
                    "a channel needs " + std::to_string(entries) +
                        " completion queue entries; the device holds at most " + std::to_string(max_entries_) +
                        " per queue (max_cqe)",
                    ENOSPC);
  }
  for (auto& queue : queues_) {
    if (queue->reserved() + entries <= max_entries_) {
      queue->reserve(entries);  // may grow it (ibv_resize_cq)
      publish();
      return *queue;
    }
  }
  int initial = std::min(std::max(entries_, entries), max_entries_);
  auto added = std::make_unique<CompletionQueue>(context_, initial, max_entries_, channel_);
  added->reserve(entries);
  queues_.push_back(std::move(added));
  ++added_;
  publish();
  return *queues_.back();
}

CompletionQueue* CompletionQueues::find(const ibv_cq* cq) const noexcept {
  for (const auto& queue : queues_) {
    if (queue->get() == cq) return queue.get();
  }
  return nullptr;
}

void CompletionQueues::arm_all() {
  for (auto& queue : queues_) queue->arm();
}

void CompletionQueues::release_unused() noexcept {
  bool released = false;
  for (std::size_t i = queues_.size(); i-- > 1;) {
    if (queues_[i]->reserved() == 0 && queues_[i]->release() == 0) {
      retired_resizes_ += queues_[i]->resizes();
      queues_.erase(queues_.begin() + static_cast<std::ptrdiff_t>(i));
      released = true;
    }
  }
  if (released) publish();
}

void CompletionQueues::publish() noexcept {
  int capacity = 0;
  int resizes = 0;
  for (const auto& queue : queues_) {
    capacity += queue->capacity();
    resizes += queue->resizes();
  }
  capacity_.store(capacity, std::memory_order_relaxed);
  resizes_.store(resizes + retired_resizes_ + added_, std::memory_order_relaxed);  // an added CQ counts as one
}

int CompletionQueues::release() noexcept {
  int first_failure = 0;
  for (auto& queue : queues_) {
    int rc = queue->release();
    if (rc != 0 && first_failure == 0) first_failure = rc;
  }
  return first_failure;
}

}  // namespace jrdma::verbs
