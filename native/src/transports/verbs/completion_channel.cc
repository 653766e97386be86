#include "transports/verbs/completion_channel.h"

#include <fcntl.h>

#include <cerrno>

#include "base/error.h"

namespace jrdma::verbs {

CompletionChannel::CompletionChannel(ibv_context* context) {
  errno = 0;
  channel_ = ibv_create_comp_channel(context);
  if (channel_ == nullptr) throw_errno("ibv_create_comp_channel()", errno != 0 ? errno : ENOMEM);
  int flags = fcntl(channel_->fd, F_GETFL);
  if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    int err = errno;
    ibv_destroy_comp_channel(channel_);
    channel_ = nullptr;
    throw_errno("fcntl(completion channel, O_NONBLOCK)", err);
  }
}

CompletionChannel::~CompletionChannel() { release(); }

int CompletionChannel::release() noexcept {
  if (channel_ == nullptr) return 0;
  int rc = ibv_destroy_comp_channel(channel_);
  if (rc == 0) channel_ = nullptr;
  return rc;
}

}  // namespace jrdma::verbs
