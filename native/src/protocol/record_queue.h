// The records a context has for Java, from any thread, handed over in order in batches. Taking
// keeps the vector's capacity, so steady traffic allocates nothing; an empty queue is seen without
// the lock.
//
// A push never loses a record to a failed allocation: when the vector cannot grow, the record goes
// to a fixed reserve, and so does every later one until the reserve is moved back into the vector
// (at the next push that can grow it) or taken — so the order holds. Only a reserve that fills while
// no allocation succeeds throws std::bad_alloc. A record lost would be an operation never reported.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "protocol/event_record.h"

namespace jrdma {

template <typename Allocator = std::allocator<EventRecord>>
class BasicRecordQueue {
 public:
  static constexpr std::size_t kReserve = 256;  // one batch of Java's (EventLoop.BATCH)

  void push(const EventRecord& record) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (reserved_ > 0 && !move_reserve_locked(1)) {
      if (reserved_ == kReserve) throw std::bad_alloc();
      reserve_[reserved_++] = record;
    } else {
      try {
        records_.push_back(record);
      } catch (const std::bad_alloc&) {
        reserve_[reserved_++] = record;  // (the reserve is empty here: it was moved or never used)
      }
    }
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
      // The reserve's records are newer than the vector's: they come after it.
      std::size_t m = std::min(reserved_, static_cast<std::size_t>(capacity) - n);
      std::copy(reserve_.begin(), reserve_.begin() + static_cast<std::ptrdiff_t>(m), out + n);
      std::copy(reserve_.begin() + static_cast<std::ptrdiff_t>(m),
                reserve_.begin() + static_cast<std::ptrdiff_t>(reserved_), reserve_.begin());
      reserved_ -= m;
      n += m;
      if (reserved_ == 0) pending_.store(false, std::memory_order_release);
    }
    return static_cast<int>(n);
  }

 private:
  // Moves the reserve to the vector's end with room for `more` after it; false when it cannot grow.
  bool move_reserve_locked(std::size_t more) noexcept {
    try {
      records_.reserve(records_.size() + reserved_ + more);
    } catch (const std::bad_alloc&) {
      return false;
    } catch (const std::length_error&) {
      return false;
    }
    records_.insert(records_.end(), reserve_.begin(), reserve_.begin() + static_cast<std::ptrdiff_t>(reserved_));
    reserved_ = 0;
    return true;
  }

  std::mutex mutex_;
  std::vector<EventRecord, Allocator> records_;
  std::size_t head_ = 0;
  std::array<EventRecord, kReserve> reserve_{};  // records the vector could not take, oldest first
  std::size_t reserved_ = 0;
  std::atomic<bool> pending_{false};
};

using RecordQueue = BasicRecordQueue<>;

}  // namespace jrdma
