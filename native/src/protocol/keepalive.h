// Keepalive (docs/protocol.md, "Keepalive"): when the peer counts as silent, and when we owe it a
// message. Only the peer's own messages prove it alive (its NIC acknowledges our sends even when
// the process is stopped or hung); a peer that watches (its announced bound) gets a message from us
// at least every third of its bound. Flags on the hot paths (heard, sent), clock reads only in
// tick(). Pure logic: the engine owns one per channel under its lock; host-tested without a clock
// (keepalive_test.cc).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace jrdma {

class Keepalive {
 public:
  using Clock = std::chrono::steady_clock;

  // `bound_ms`: how long the peer may be silent (RdmaConfig.keepaliveMillis; 0: not watched).
  explicit Keepalive(uint32_t bound_ms) noexcept : bound_ms_(bound_ms) {}

  // The channel opened at `now`: the peer was heard and we sent (the handshake).
  void start(Clock::time_point now) noexcept { last_heard_ = last_sent_ = now; }
  // Hot paths: a message came from the peer / one of ours was posted.
  void heard() noexcept { heard_ = true; }
  void sent() noexcept { sent_ = true; }

  struct Verdict {
    int64_t silent_ms = 0;     // how long the peer has been silent, when that reached the bound (else 0)
    bool owe_message = false;  // the peer watches and heard nothing from us for a third of its bound
  };
  // Every tick. `peer_bound_ms`: the bound the peer announced (0: it does not watch).
  Verdict tick(Clock::time_point now, uint32_t peer_bound_ms) noexcept {
    // A stall of our own (a GC pause, a handler that ran long, a descheduled loop) is not the
    // peer's silence: its messages may wait in the completion queue, polled after this tick.
    // Silence is only judged over time this side was running.
    auto own_stall = std::chrono::milliseconds(std::max<uint32_t>(500, bound_ms_ / 4));
    if (last_tick_ != Clock::time_point{} && now - last_tick_ > own_stall) last_heard_ = now;
    last_tick_ = now;
    if (heard_) last_heard_ = now;
    if (sent_) last_sent_ = now;
    heard_ = sent_ = false;
    Verdict verdict;
    if (bound_ms_ != 0) {
      auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_heard_).count();
      if (silent >= bound_ms_) {
        verdict.silent_ms = silent;
        return verdict;
      }
    }
    verdict.owe_message = peer_bound_ms != 0 && now - last_sent_ >= std::chrono::milliseconds(peer_bound_ms / 3);
    return verdict;
  }
  // The message owed went at `now`: the cadence is a third of the peer's bound, not that plus a tick.
  void message_sent(Clock::time_point now) noexcept {
    last_sent_ = now;
    sent_ = false;
  }
  uint32_t bound_ms() const noexcept { return bound_ms_; }

 private:
  const uint32_t bound_ms_;
  bool heard_ = false;
  bool sent_ = false;
  Clock::time_point last_heard_{};
  Clock::time_point last_sent_{};
  Clock::time_point last_tick_{};
};

}  // namespace jrdma
