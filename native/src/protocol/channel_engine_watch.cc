// What the channel engine does on its own, not in answer to the peer or Java: the tick (graceful
// close deadline, keepalive, operation timeout) and the counters of what the channel did.
// docs/protocol.md, "Keepalive" and "Operation timeout".
#include <algorithm>
#include <chrono>

#include "protocol/channel_engine.h"

namespace jrdma {

void ChannelEngine::tick(std::chrono::steady_clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kClosing && now >= close_deadline_) {
    finish_locked(ClosedCause::kGracefulTimeout, 0, options_.graceful_close_ms);
  }
  if (state_ == State::kOpen && auth_.pending && now >= auth_.deadline) {
    finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kAuthFailed),
                  static_cast<int64_t>(AuthFailure::kTimedOut), options_.auth_timeout_ms);
  }
  if (state_ == State::kOpen) keepalive_locked(now);
  if (state_ == State::kOpen) watch_progress_locked(now);
  if (state_ == State::kOpen) watch_deadlines_locked(now);
  if (state_ == State::kOpen || state_ == State::kClosing) expire_agent_requests_locked(now);
}

// RDMA cannot withdraw a posted operation: when operations wait (for credits, a slot, the device
// or the peer's answer to a rendezvous) and none finishes for the bound, the channel closes and
// every one of them fails with the cause. Reports are in submission order, so "none reported"
// means the oldest has waited at least that long.
void ChannelEngine::watch_progress_locked(std::chrono::steady_clock::time_point now) {
  bool waiting = reports_.waiting() > 0 || !queue_.empty();
  if (progressed_ || !waiting) last_progress_ = now;
  progressed_ = false;
  if (options_.operation_timeout_ms == 0 || !waiting) return;
  auto stalled = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_progress_).count();
  if (stalled >= options_.operation_timeout_ms) {
    finish_locked(ClosedCause::kOperationTimeout, 0, stalled, options_.operation_timeout_ms);
  }
}

// An operation Java submitted with a deadline (RdmaChannel.withDeadline). The allocation request
// is not watched here: the agent bounds it (AgentLimits) and reports it by kAgentReply.
void ChannelEngine::note_deadline_locked(const Submission& s) {
  if (s.deadline_ms == 0 || static_cast<OpKind>(s.kind) == OpKind::kAllocateRemote) return;
  deadlines_.push_back(Deadline{s.seq, static_cast<OpKind>(s.kind), s.deadline_ms,
                                std::chrono::steady_clock::now() + std::chrono::milliseconds(s.deadline_ms)});
}

// An operation past its deadline cannot be withdrawn alone when it is posted, and the ones queued
// behind it keep their order: the channel closes, every pending operation fails with the cause
// (code: the late operation's kind, detail: how long it waited, detail2: its deadline).
// Found within a tick (~100 ms) of the deadline.
void ChannelEngine::watch_deadlines_locked(std::chrono::steady_clock::time_point now) {
  for (const Deadline& d : deadlines_) {
    if (now < d.at) continue;
    auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - d.at).count() + d.ms;
    return finish_locked(ClosedCause::kOperationTimeout, static_cast<int32_t>(d.kind), waited, d.ms);
  }
}

// Only the peer's own messages prove it alive: its NIC acknowledges our sends even when the
// process is stopped or hung. A peer that watches (announced keepalive) gets a message from us
// at least every third of its bound; an explicit credit message serves when nothing else went.
void ChannelEngine::keepalive_locked(std::chrono::steady_clock::time_point now) {
  // A stall of our own (a GC pause, a handler that ran long, a descheduled loop) is not the peer's
  // silence: its messages may wait in the completion queue, polled after this tick. Silence is only
  // judged over time this side was running.
  auto own_stall = std::chrono::milliseconds(std::max<uint32_t>(500, options_.keepalive_ms / 4));
  if (last_tick_ != std::chrono::steady_clock::time_point{} && now - last_tick_ > own_stall) last_heard_ = now;
  last_tick_ = now;
  if (heard_) last_heard_ = now;
  if (sent_) last_sent_ = now;
  heard_ = sent_ = false;
  if (options_.keepalive_ms != 0) {
    auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_heard_).count();
    if (silent >= options_.keepalive_ms) {
      return finish_locked(ClosedCause::kPeerSilent, 0, silent, options_.keepalive_ms);
    }
  }
  if (peer_.keepalive != 0 && now - last_sent_ >= std::chrono::milliseconds(peer_.keepalive / 3)) {
    Submission credit{};
    credit.kind = static_cast<uint8_t>(OpKind::kCredit);
    if (can_post_locked(credit)) {
      take_locked(credit);
      flush_locked();
      last_sent_ = now;  // the cadence is a third of the bound, not that plus a tick
      sent_ = false;
    }
  }
}

void ChannelEngine::count_posted_locked(OpKind kind, uint64_t length) noexcept {
  switch (kind) {
    case OpKind::kSend:
      counters_.add(Counter::kMessagesSent);
      counters_.add(Counter::kBytesSent, length);
      break;
    case OpKind::kCredit:
      counters_.add(Counter::kCreditMessages);
      break;
    case OpKind::kWrite:
    case OpKind::kWriteWithImmediate:
      counters_.add(Counter::kWrites);
      break;
    case OpKind::kRead:
      counters_.add(Counter::kReads);
      break;
    case OpKind::kCompareAndSwap:
    case OpKind::kFetchAndAdd:
      counters_.add(Counter::kAtomics);
      break;
    default:
      break;
  }
}

ChannelCounters ChannelEngine::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

}  // namespace jrdma
