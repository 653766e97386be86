#include "transports/verbs/shared_receive_queues.h"

#include <cerrno>
#include <cstdio>
#include <string>

#include "base/error.h"

namespace jrdma::verbs {

SharedReceiveQueue* SharedReceiveQueues::for_eager(uint32_t eager) {
  if (!enabled()) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t count = count_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < count; ++i) {
    SharedReceiveQueue* queue = queues_[i].load(std::memory_order_relaxed);
    if (queue->buffer_size() == eager) return queue;
  }
  if (count == kMaxQueues) {
    throw RdmaError(ErrorKind::kConfiguration,
                    "a context shares receive queues among at most " + std::to_string(kMaxQueues) +
                        " eager sizes; eagerSize " + std::to_string(eager) + " would be one more",
                    ENOSPC);
  }
  auto queue = std::make_unique<SharedReceiveQueue>(pd_, count, eager, buffers_, capacity_);
  queues_[count].store(queue.release(), std::memory_order_release);
  count_.store(count + 1, std::memory_order_release);
  return queues_[count].load(std::memory_order_relaxed);
}

SharedReceiveQueue* SharedReceiveQueues::at(uint32_t index) const noexcept {
  if (index >= count_.load(std::memory_order_acquire)) return nullptr;
  return queues_[index].load(std::memory_order_acquire);
}

uint32_t SharedReceiveQueues::buffers() const noexcept {
  uint32_t total = 0;
  uint32_t count = count_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < count; ++i) total += queues_[i].load(std::memory_order_acquire)->buffers();
  return total;
}

void SharedReceiveQueues::post_given_back() {
  uint32_t count = count_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < count; ++i) {
    SharedReceiveQueue* queue = queues_[i].load(std::memory_order_acquire);
    queue->post_given_back();
    try {
      queue->grow_if_low();
    } catch (const RdmaError& e) {
      // It keeps what it has (senders wait for re-posts); the next low-water report tries again.
      std::fprintf(stderr, "jrdma: a shared receive queue of %u buffers could not grow: %s\n", queue->buffers(),
                   e.what());
    }
  }
}

void SharedReceiveQueues::release() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t count = count_.exchange(0);
  for (uint32_t i = 0; i < count; ++i) delete queues_[i].exchange(nullptr);
}

}  // namespace jrdma::verbs
