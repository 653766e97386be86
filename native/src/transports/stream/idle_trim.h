// When a stream channel has been idle long enough to give its buffers' pages back (TcpChannel::trim_if_idle).
//
// An idle channel should cost next to nothing, so its staging, read-ahead and source slots go back to the
// system after a second of ticks without traffic. But with thousands of channels streaming, a channel's turn
// comes about once a second: a fixed second trimmed busy channels between two messages, and each message then
// faulted its pages in again (zeroed by the kernel) — a cost that made the loop slower still, so more channels
// looked idle (throughput at 2,000 channels fell 4x). So a trim that traffic follows soon — within the longest
// limit — doubles the channel's limit (up to kMaxTicks); a channel idle for that long starts from kTicks again.
#pragma once

#include <algorithm>
#include <cstdint>

namespace jrdma::tcp {

class IdleTrim {
 public:
  static constexpr int kTicks = 10;      // about a second of the loop's ticks: the first limit
  static constexpr int kMaxTicks = 160;  // about 16 s: the longest

  // Once a tick, with the count of what the channel moved so far: true when it should trim now (the
  // caller may still find it busy — bytes in hand, answers awaited — and then calls not_now()).
  bool tick(uint64_t moved) noexcept {
    if (moved != moved_at_last_tick_) {
      moved_at_last_tick_ = moved;
      if (trimmed_ && idle_ticks_ < kMaxTicks) limit_ = std::min(limit_ * 2, kMaxTicks);  // it cost more than it saved
      idle_ticks_ = 0;
      trimmed_ = false;
      return false;
    }
    if (idle_ticks_ < kMaxTicks) ++idle_ticks_;
    if (trimmed_) {
      if (idle_ticks_ >= kMaxTicks) limit_ = kTicks;  // idle for long: the next trim comes early again
      return false;
    }
    return idle_ticks_ >= limit_;
  }
  // The caller trimmed (after tick() said so).
  void trimmed() noexcept { trimmed_ = true; }
  // Ticks without traffic before the next trim.
  int limit() const noexcept { return limit_; }

 private:
  uint64_t moved_at_last_tick_ = 0;
  int idle_ticks_ = kMaxTicks;  // nothing resident yet, and no trim to regret: traffic does not raise the limit
  int limit_ = kTicks;
  bool trimmed_ = true;
};

}  // namespace jrdma::tcp
