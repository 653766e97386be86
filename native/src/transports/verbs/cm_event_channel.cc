#include "transports/verbs/cm_event_channel.h"

#include <fcntl.h>

#include <cerrno>

#include "base/error.h"

namespace jrdma::verbs {

CmEventChannel::CmEventChannel() {
  channel_ = rdma_create_event_channel();
  if (channel_ == nullptr) throw_errno("rdma_create_event_channel()", errno);
  int flags = fcntl(channel_->fd, F_GETFL);
  if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    int err = errno;
    release();
    throw_errno("fcntl(rdma_cm fd, O_NONBLOCK)", err);
  }
}

CmEventChannel::~CmEventChannel() { release(); }

rdma_cm_event* CmEventChannel::next() noexcept {
  rdma_cm_event* event = nullptr;
  return rdma_get_cm_event(channel_, &event) == 0 ? event : nullptr;  // EAGAIN: drained
}

void CmEventChannel::release() noexcept {
  if (channel_ != nullptr) rdma_destroy_event_channel(channel_);
  channel_ = nullptr;
}

}  // namespace jrdma::verbs
