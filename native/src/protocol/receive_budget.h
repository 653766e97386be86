// The context's limit on bytes being received by rendezvous (docs/configuration.md,
// receiveBudget): a transfer starts reading only once its length fits, so a peer announcing
// large messages makes us allocate nothing beyond it. A transfer larger than the whole budget still
// goes, alone. Engines that had to wait are remembered and retried by the context's loop once bytes
// come back. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace jrdma {

class ReceiveBudget {
 public:
  explicit ReceiveBudget(uint64_t limit) : limit_(limit) {}

  // Takes bytes when they fit (or nothing is taken); otherwise remembers the engine's key.
  bool try_take(uint64_t bytes, uint32_t waiter) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (used_ == 0 || used_ + bytes <= limit_) {
      used_ += bytes;
      return true;
    }
    for (uint32_t key : waiters_) {
      if (key == waiter) return false;
    }
    waiters_.push_back(waiter);
    retry_due_.store(released_, std::memory_order_release);
    return false;
  }
  void give(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    used_ = bytes > used_ ? 0 : used_ - bytes;
    released_ = true;
    retry_due_.store(!waiters_.empty(), std::memory_order_release);
  }
  // The engines that waited, once bytes came back since they did (then forgotten); else none.
  // Every turn of every context loop asks: without anything due it costs one atomic load, no lock.
  std::vector<uint32_t> waiters_to_retry() {
    std::vector<uint32_t> keys;
    if (!retry_due_.load(std::memory_order_acquire)) return keys;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!released_ || waiters_.empty()) return keys;
    released_ = false;
    retry_due_.store(false, std::memory_order_relaxed);
    keys.swap(waiters_);
    return keys;
  }
  uint64_t in_use() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return used_;
  }
  uint64_t limit() const noexcept { return limit_; }

 private:
  const uint64_t limit_;
  mutable std::mutex mutex_;
  uint64_t used_ = 0;
  bool released_ = false;
  std::vector<uint32_t> waiters_;
  std::atomic<bool> retry_due_{false};  // released_ && !waiters_.empty(), readable without the lock
};

}  // namespace jrdma
