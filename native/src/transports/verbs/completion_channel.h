// RAII owner of a completion channel (the fd the event loop waits on for CQ notifications).
#pragma once

#include <infiniband/verbs.h>

namespace jrdma::verbs {

class CompletionChannel {
 public:
  // The channel's fd is made non-blocking so that draining it never stalls the loop.
  explicit CompletionChannel(ibv_context* context);
  ~CompletionChannel();
  CompletionChannel(const CompletionChannel&) = delete;
  CompletionChannel& operator=(const CompletionChannel&) = delete;

  ibv_comp_channel* get() const noexcept { return channel_; }
  int fd() const noexcept { return channel_->fd; }
  int release() noexcept;

 private:
  ibv_comp_channel* channel_ = nullptr;
};

}  // namespace jrdma::verbs
