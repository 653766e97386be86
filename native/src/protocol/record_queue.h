// The records a context has for Java, from any thread, handed over in order in batches. Taking
// keeps the vector's capacity, so steady traffic allocates nothing; an empty queue is seen without
// the lock.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include "protocol/event_record.h"

namespace jrdma {

class RecordQueue {
 public:
  void push(const EventRecord& record) {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.push_back(record);
    pending_.store(true, std::memory_order_release);
  }

  bool pending() const noexcept { return pending_.load(std::memory_order_acquire); }

  // Up to `capacity` of the oldest records into `out`; how many.
  int take(EventRecord* out, int capacity) {
    if (!pending()) return 0;
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t n = std::min(records_.size() - head_, static_cast<std::size_t>(capacity));
    std::copy(records_.begin() + static_cast<std::ptrdiff_t>(head_),
              records_.begin() + static_cast<std::ptrdiff_t>(head_ + n), out);
    head_ += n;
    if (head_ == records_.size()) {
      records_.clear();  // keeps its capacity: no allocation per batch
      head_ = 0;
      pending_.store(false, std::memory_order_release);
    }
    return static_cast<int>(n);
  }

 private:
  std::mutex mutex_;
  std::vector<EventRecord> records_;
  std::size_t head_ = 0;
  std::atomic<bool> pending_{false};
};

}  // namespace jrdma
