// The context's event loop: waits on epoll (or spins on the CQ in busy-poll mode), hands every
// work completion to its channel's engine, flushes the engines a batch touched (one chain and one
// doorbell each), and returns the records the engines and connection events produced. Loop
// thread only.
#include <arpa/inet.h>
#include <sched.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/async_event.h"
#include "core/context.h"
#include "core/error.h"
#include "core/event_loop_tags.h"

namespace jrdma {

void Context::poll_cq(int budget) {
  constexpr int kBatch = 32;
  ibv_wc wc[kBatch];
  // JRDMA_TRACE_CQ=1 prints every work completion (diagnostics; docs/testing.md).
  static const bool trace = std::getenv("JRDMA_TRACE_CQ") != nullptr;
  for (int polled = 0; polled < budget;) {
    int got = ibv_poll_cq(cq_.get(), kBatch, wc);
    if (got < 0) throw RdmaError(ErrorKind::kNative, "ibv_poll_cq() failed: " + std::to_string(got), EIO);
    for (int i = 0; i < got; ++i) {
      const ibv_wc& w = wc[i];
      if (trace) {
        std::fprintf(stderr, "jrdma cq: %s key %u %s slot %u status %d opcode %d qp %u\n",
                     ibv_get_device_name(device()->device), wr_id_key(w.wr_id),
                     wr_id_is_receive(w.wr_id) ? "recv" : "send", wr_id_slot(w.wr_id), w.status, w.opcode, w.qp_num);
      }
      Channel* channel = lookup(wr_id_key(w.wr_id));
      if (channel == nullptr) continue;  // the channel was destroyed: a late (flushed) completion
      const uint32_t slot = wr_id_slot(w.wr_id);
      ChannelEngine& engine = channel->engine;
      if (!wr_id_is_receive(w.wr_id)) {
        engine.on_send_completion(slot, w.status);
      } else if (w.status != IBV_WC_SUCCESS) {
        engine.on_receive_error(w.status);
      } else if (w.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
        engine.on_immediate(slot, ntohl(w.imm_data));
      } else {
        engine.on_receive(slot, w.byte_len);
      }
      if (!channel->dirty) {
        channel->dirty = true;
        dirty_.push_back(channel);
      }
    }
    polled += got;
    if (got < kBatch) break;
  }
  flush_dirty_channels();
  retry_budget_waiters();
}

void Context::flush_dirty_channels() {
  for (Channel* channel : dirty_) {
    channel->dirty = false;
    channel->engine.flush();  // re-posts and what the completions made postable: one doorbell
  }
  dirty_.clear();
}

void Context::drain_completion_channel() {
  ibv_cq* ev_cq = nullptr;
  void* ev_ctx = nullptr;
  // One notification per wake-up: the CQ raises one per arm, and should more be queued (arms that
  // were not slept on), the level-triggered epoll reports the fd again. Reading until EAGAIN would
  // cost a system call per message in event mode.
  if (ibv_get_cq_event(channel_.get(), &ev_cq, &ev_ctx) == 0) cq_.event_received();
}

void Context::drain_async_events() {
  ibv_async_event event{};
  while (ibv_get_async_event(device_.get(), &event) == 0) {
    emit(make_record(EventKind::kAsyncEvent, 0, event.event_type, async_event_port(event),
                     static_cast<int64_t>(classify_async_event(event.event_type))));
    ibv_ack_async_event(&event);
  }
}

void Context::check_fds(int timeout_ms) {
  epoll_event events[4];
  int ready = epoll_wait(epoll_fd_, events, 4, timeout_ms);
  if (ready < 0) {
    if (errno == EINTR) return;
    throw_errno("epoll_wait()", errno);
  }
  for (int i = 0; i < ready; ++i) {
    switch (events[i].data.u32) {
      case kTagCompletion:
        drain_completion_channel();
        poll_pending_ = true;
        break;
      case kTagAsync:
        drain_async_events();
        break;
      case kTagCm:
        drain_cm_events();
        break;
      case kTagWake: {
        wake_requested_.store(false, std::memory_order_relaxed);
        uint64_t count;
        if (read(wake_fd_, &count, sizeof count) == sizeof count) {
          emit(make_record(EventKind::kWakeup, 0));  // Java runs its queued tasks
          run_commands();
        }
        break;
      }
      default:
        break;
    }
  }
  retry_budget_waiters();  // bytes may have come back from a close on another thread
}

int Context::busy_wait(EventRecord* out, int capacity, int timeout_ms) {
  // Spin on the CQ in user space; the fds (async events, rdma_cm, wake-ups) cost a system call
  // each — expensive, and very expensive under emulation — so they are checked every 256 spins.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (unsigned spins = 1;; ++spins) {
    poll_cq(capacity);
    if (int n = take_records(out, capacity); n > 0) return n;
    if ((spins & 255) == 0) {
      check_fds(0);
      tick_channels();
      if (int n = take_records(out, capacity); n > 0) return n;
      if (timeout_ms >= 0 && std::chrono::steady_clock::now() >= deadline) return 0;
      // Idle for a while: let other runnable threads of this CPU go first (an application thread
      // that shares the CPU, e.g. one spinning on memory a peer writes). Returns at once when
      // nothing else wants the CPU.
      sched_yield();
    }
  }
}

int Context::poll(EventRecord* out, int capacity) {
  if (closed_) throw RdmaError(ErrorKind::kIllegalState, "context " + name_ + " is closed");
  loop_thread_.store(std::this_thread::get_id());
  poll_cq(capacity);
  return take_records(out, capacity);
}

int Context::spin_before_sleep(EventRecord* out, int capacity) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const auto budget = std::chrono::nanoseconds(spin_.budget_ns());
  for (unsigned spins = 1;; ++spins) {
    poll_cq(capacity);
    if (int n = take_records(out, capacity); n > 0) {
      spin_.found(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count()));
      return n;
    }
    // Commands and Java's tasks arrive through the eventfd: stop spinning so that they run now.
    if (wake_requested_.load(std::memory_order_acquire)) return 0;
    if (Clock::now() - start >= budget) {
      spin_.missed();
      return 0;
    }
    // Let other runnable threads of this CPU go first now and then: the application thread that
    // would post the next request, or one spinning on memory the peer writes, may share the CPU.
    // Returns at once when nothing else wants it.
    if ((spins & 15) == 0) sched_yield();
  }
}

int Context::wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode) {
  if (closed_) throw RdmaError(ErrorKind::kIllegalState, "context " + name_ + " is closed");
  if (capacity < 4) throw RdmaError(ErrorKind::kIllegalArgument, "capacity must be at least 4");
  loop_thread_.store(std::this_thread::get_id());
  run_commands();
  tick_channels();
  // Records left from the last round (more than one batch) go first; new events only when none are.
  if (int n = take_records(out, capacity); n > 0) return n;
  if (mode == PollMode::kBusy) return busy_wait(out, capacity, timeout_ms);
  for (;;) {
    if (poll_pending_) {
      // The CQ stays unarmed while it has work: arming costs a system call on some devices (rxe).
      poll_cq(capacity);
      if (int n = take_records(out, capacity); n > 0) return n;
      idle_since_ = std::chrono::steady_clock::now();  // what a completion ends is measured from here
      if (mode == PollMode::kAdaptive && spin_.budget_ns() > 0) {
        if (int n = spin_before_sleep(out, capacity); n > 0) return n;
      }
      // Re-arm, then poll once more: a completion that arrived between the empty poll and the
      // re-arm raises no event, so it must be picked up here.
      cq_.arm();
      poll_pending_ = false;
      poll_cq(capacity);
      if (int n = take_records(out, capacity); n > 0) {
        poll_pending_ = true;  // more may be waiting: poll again before sleeping
        return n;
      }
    }
    check_fds(timeout_ms);
    if (mode == PollMode::kAdaptive && poll_pending_) {
      // A completion ended the sleep: had the loop spun from the moment it ran out of work (not
      // only from the sleep's start, after a spin that fell short), it would have caught it.
      spin_.woken_after(static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - idle_since_).count()));
    }
    if (int n = take_records(out, capacity); n > 0) return n;
    if (!poll_pending_) {
      // Timeout. Poll the CQ on the next call even without a notification: should a
      // notification ever be lost, completions are late by one timeout instead of forever.
      poll_pending_ = true;
      tick_channels();
      return take_records(out, capacity);
    }
  }
}

}  // namespace jrdma
