#include "transports/verbs/completion_queue.h"

#include <cerrno>
#include <string>

#include "base/error.h"

namespace jrdma::verbs {

CompletionQueue::CompletionQueue(ibv_context* context, int entries, int max_entries, ibv_comp_channel* channel) {
  errno = 0;
  cq_ = ibv_create_cq(context, entries, nullptr, channel, 0);
  if (cq_ == nullptr) throw_errno("ibv_create_cq(cqe=" + std::to_string(entries) + ")", errno != 0 ? errno : ENOMEM);
  capacity_.store(cq_->cqe, std::memory_order_relaxed);
  max_entries_ = max_entries > 0 ? max_entries : cq_->cqe;
}

CompletionQueue::~CompletionQueue() { release(); }

void CompletionQueue::arm() {
  if (int rc = ibv_req_notify_cq(cq_, 0); rc != 0) throw_errno("ibv_req_notify_cq()", rc);
}

void CompletionQueue::event_received() noexcept {
  if (++unacked_events_ >= kAckBatch) {
    ibv_ack_cq_events(cq_, unacked_events_);
    unacked_events_ = 0;
  }
}

void CompletionQueue::reserve(int entries) {
  int needed = reserved_ + entries;
  if (needed > capacity()) {
    if (needed > max_entries_) {
      throw RdmaError(ErrorKind::kNative,
                      "the completion queue would need " + std::to_string(needed) +
                          " entries; the device holds at most " + std::to_string(max_entries_) + " (max_cqe)",
                      ENOSPC);
    }
    int target = needed > 2 * capacity() ? needed : 2 * capacity();
    if (target > max_entries_) target = max_entries_;
    if (int rc = ibv_resize_cq(cq_, target); rc != 0)
      throw_errno("ibv_resize_cq(cqe=" + std::to_string(target) + ")", rc);
    capacity_.store(cq_->cqe, std::memory_order_relaxed);
    resizes_.fetch_add(1, std::memory_order_relaxed);
  }
  reserved_ = needed;
}

int CompletionQueue::release() noexcept {
  if (cq_ == nullptr) return 0;
  if (unacked_events_ > 0) {
    ibv_ack_cq_events(cq_, unacked_events_);
    unacked_events_ = 0;
  }
  int rc = ibv_destroy_cq(cq_);
  if (rc == 0) cq_ = nullptr;
  return rc;
}

}  // namespace jrdma::verbs
