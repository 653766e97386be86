// Connections a server accepted that are not open yet: before their hello, parked for the
// admission policy, being established, or proving the pre-shared key. Anyone who can reach a
// listening port can make one, and each holds memory (a socket and its hello, or a queue pair and
// its receive ring), so they are bounded per listener and per context (maxPendingConnections); one
// over either bound is refused with kTooManyPending and the bound it met. One implementation for
// every transport: a connection holds a PendingPlace, given back when it opens or goes.
#pragma once

#include <atomic>
#include <cstdint>

namespace jrdma {

// A listener's share of the pending connections: its bound and how many it holds. Loop thread.
struct PendingCount {
  uint32_t bound = 64;
  uint32_t held = 0;
};

// One connection's place among the pending ones; given back by release() or when destroyed.
// Move-only. Loop thread.
class PendingPlace {
 public:
  PendingPlace() = default;
  ~PendingPlace() { release(); }
  PendingPlace(PendingPlace&& other) noexcept : listener_(other.listener_), context_(other.context_) {
    other.listener_ = nullptr;
    other.context_ = nullptr;
  }
  PendingPlace& operator=(PendingPlace&& other) noexcept {
    if (this != &other) {
      release();
      listener_ = other.listener_;
      context_ = other.context_;
      other.listener_ = nullptr;
      other.context_ = nullptr;
    }
    return *this;
  }
  PendingPlace(const PendingPlace&) = delete;
  PendingPlace& operator=(const PendingPlace&) = delete;

  bool held() const noexcept { return context_ != nullptr; }
  bool at(const PendingCount& listener) const noexcept { return listener_ == &listener; }
  // The connection opened, failed or went: it counts nowhere any more.
  void release() noexcept {
    leave_listener();
    if (context_ != nullptr) context_->fetch_sub(1, std::memory_order_relaxed);
    context_ = nullptr;
  }
  // Its listener closes first: the connection still pins memory, so it keeps counting against the
  // context until it settles, but no longer against the listener (which is freed).
  void leave_listener() noexcept {
    if (listener_ != nullptr) --listener_->held;
    listener_ = nullptr;
  }

 private:
  friend class PendingConnections;
  PendingPlace(PendingCount* listener, std::atomic<uint32_t>* context) noexcept
      : listener_(listener), context_(context) {}

  PendingCount* listener_ = nullptr;
  std::atomic<uint32_t>* context_ = nullptr;
};

// The context's count of pending connections. Outlives every place it gave (a member declared
// before the channels and requests that hold them). Loop thread; held() any thread.
class PendingConnections {
 public:
  explicit PendingConnections(uint32_t bound) noexcept : bound_(bound) {}
  PendingConnections(const PendingConnections&) = delete;
  PendingConnections& operator=(const PendingConnections&) = delete;

  // A place at `listener`; or none, with the bound it met (the listener's first) in `*bound_met`.
  PendingPlace take(PendingCount& listener, uint32_t* bound_met) noexcept {
    if (listener.held >= listener.bound) {
      *bound_met = listener.bound;
      return PendingPlace();
    }
    if (held() >= bound_) {
      *bound_met = bound_;
      return PendingPlace();
    }
    ++listener.held;
    held_.fetch_add(1, std::memory_order_relaxed);
    return PendingPlace(&listener, &held_);
  }
  uint32_t held() const noexcept { return held_.load(std::memory_order_relaxed); }
  uint32_t bound() const noexcept { return bound_; }

 private:
  const uint32_t bound_;
  std::atomic<uint32_t> held_{0};
};

}  // namespace jrdma
