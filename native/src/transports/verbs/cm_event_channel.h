// RAII owner of an rdma_cm event channel with a non-blocking fd (watched by the context's epoll).
#pragma once

#include <rdma/rdma_cma.h>

namespace jrdma::verbs {

class CmEventChannel {
 public:
  CmEventChannel();
  ~CmEventChannel();
  CmEventChannel(const CmEventChannel&) = delete;
  CmEventChannel& operator=(const CmEventChannel&) = delete;

  rdma_event_channel* get() const noexcept { return channel_; }
  int fd() const noexcept { return channel_->fd; }
  // The next event, or null when none is waiting. The caller acknowledges it (rdma_ack_cm_event).
  rdma_cm_event* next() noexcept;
  // Destroys now (after every id on it); idempotent.
  void release() noexcept;

 private:
  rdma_event_channel* channel_ = nullptr;
};

}  // namespace jrdma::verbs
