// Operation timeouts (docs/protocol.md, "Operation timeout"): RDMA cannot withdraw a posted
// operation, so a channel whose operations stall closes and fails every one of them with the cause.
// Two watches: the channel's bound (RdmaConfig.operationTimeoutMillis: operations wait and none
// finishes for that long) and each operation's own deadline (RdmaChannel.withDeadline). Reports are
// in submission order, so "none reported" means the oldest has waited at least that long, and a
// reported operation's deadline is at the front of the queue. Pure logic: the engine owns one per
// channel under its lock; host-tested without a clock (operation_watch_test.cc).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>

namespace jrdma {

class OperationWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // `bound_ms`: RdmaConfig.operationTimeoutMillis (0: operations may wait without limit).
  // Not noexcept: the deque allocates as it is constructed (an allocation failure refuses the channel).
  explicit OperationWatch(uint32_t bound_ms) : bound_ms_(bound_ms) {}

  void start(Clock::time_point now) noexcept { last_progress_ = now; }

  // An operation with a deadline was taken (in submission order); `kind` is reported with a miss.
  void expect(uint64_t seq, uint8_t kind, uint32_t deadline_ms, Clock::time_point now) {
    deadlines_.push_back(Deadline{seq, kind, deadline_ms, now + std::chrono::milliseconds(deadline_ms)});
  }
  // Operations up to `seq` were reported: progress, and their deadlines are met.
  void reported_through(uint64_t seq) noexcept {
    progressed_ = true;
    while (!deadlines_.empty() && deadlines_.front().seq <= seq) deadlines_.pop_front();
  }
  // Operations from `seq` on were never posted (they are reported unposted): no deadline for them.
  void unposted_from(uint64_t seq) noexcept {
    while (!deadlines_.empty() && deadlines_.back().seq >= seq) deadlines_.pop_back();
  }
  void clear() noexcept { deadlines_.clear(); }

  // Every tick, `waiting`: operations wait for their report. How long they stalled, when that
  // reached the channel's bound (else 0).
  int64_t stalled_ms(Clock::time_point now, bool waiting) noexcept {
    if (progressed_ || !waiting) last_progress_ = now;
    progressed_ = false;
    if (bound_ms_ == 0 || !waiting) return 0;
    auto stalled = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_progress_).count();
    return stalled >= bound_ms_ ? stalled : 0;
  }

  struct Miss {
    uint8_t kind = 0;       // the late operation's kind (0: none is late)
    int64_t waited_ms = 0;  // how long it waited
    uint32_t deadline_ms = 0;
  };
  // Every tick: the first operation past its deadline, if any.
  Miss missed(Clock::time_point now) const noexcept {
    for (const Deadline& d : deadlines_) {
      if (now < d.at) continue;
      return Miss{d.kind, std::chrono::duration_cast<std::chrono::milliseconds>(now - d.at).count() + d.ms, d.ms};
    }
    return Miss{};
  }
  uint32_t bound_ms() const noexcept { return bound_ms_; }

 private:
  struct Deadline {
    uint64_t seq;
    uint8_t kind;
    uint32_t ms;
    Clock::time_point at;
  };
  const uint32_t bound_ms_;
  bool progressed_ = false;
  Clock::time_point last_progress_{};
  std::deque<Deadline> deadlines_;
};

}  // namespace jrdma
