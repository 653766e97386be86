// What the channel engine does on its own, not in answer to the peer or Java: the tick (graceful
// close deadline, keepalive, operation timeout) and the counters of what the channel did.
// docs/protocol.md, "Keepalive" and "Operation timeout".
#include <chrono>

#include "protocol/channel_engine.h"

namespace jrdma {

void ChannelEngine::tick(std::chrono::steady_clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kClosing && now >= close_deadline_) {
    finish_locked(ClosedCause::kGracefulTimeout, 0, options_.graceful_close_ms);
  }
  if (state_ == State::kOpen && auth_.expired(now)) {
    finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kAuthFailed),
                  static_cast<int64_t>(AuthFailure::kTimedOut), options_.auth_timeout_ms);
  }
  if (state_ == State::kOpen) keepalive_locked(now);
  if (state_ == State::kOpen) watch_operations_locked(now);
  if (state_ == State::kOpen || state_ == State::kClosing) agent_.expire(now);
}

// The operations' bound and deadlines (protocol/operation_watch.h): a stall or a missed deadline
// closes the channel, every pending operation failing with the cause (for a deadline, code: the
// late operation's kind, detail: how long it waited, detail2: its deadline). Found within a tick
// (~100 ms).
void ChannelEngine::watch_operations_locked(std::chrono::steady_clock::time_point now) {
  if (int64_t stalled = operations_.stalled_ms(now, reports_.waiting() > 0 || !queue_.empty()); stalled > 0) {
    return finish_locked(ClosedCause::kOperationTimeout, 0, stalled, operations_.bound_ms());
  }
  OperationWatch::Miss miss = operations_.missed(now);
  if (miss.kind != 0) finish_locked(ClosedCause::kOperationTimeout, miss.kind, miss.waited_ms, miss.deadline_ms);
}

// An operation Java submitted with a deadline (RdmaChannel.withDeadline). The allocation request
// is not watched here: the agent bounds it (AgentLimits) and reports it by kAgentReply.
void ChannelEngine::note_deadline_locked(const Submission& s) {
  if (s.deadline_ms == 0 || static_cast<OpKind>(s.kind) == OpKind::kAllocateRemote) return;
  operations_.expect(s.seq, s.kind, s.deadline_ms, std::chrono::steady_clock::now());
}

// protocol/keepalive.h: a silent peer closes the channel; a watching peer gets an explicit credit
// message when nothing else went to it for a third of its bound.
void ChannelEngine::keepalive_locked(std::chrono::steady_clock::time_point now) {
  Keepalive::Verdict verdict = keepalive_.tick(now, peer_.keepalive);
  if (verdict.silent_ms > 0) {
    return finish_locked(ClosedCause::kPeerSilent, 0, verdict.silent_ms, keepalive_.bound_ms());
  }
  if (!verdict.owe_message) return;
  Submission credit{};
  credit.kind = static_cast<uint8_t>(OpKind::kCredit);
  if (can_post_locked(credit)) {
    take_locked(credit);
    flush_locked();
    keepalive_.message_sent(now);
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
