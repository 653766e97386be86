// A context's event loop, the same for every transport: one epoll instance and an eventfd for
// wake-ups, the queue of records for Java, the loop thread's identity, the receive budget shared by
// the context's channels, the 100 ms tick and the three ways of waiting (PollMode: event, adaptive,
// busy; adaptive_spin.h). The transport's driver (transport_driver.h) supplies where work comes
// from; the loop decides when to poll, spin, arm and sleep.
//
// Threads: the loop thread (Java's event-loop thread) calls wait_events(); any thread may emit
// records and wake the loop.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "context/adaptive_spin.h"
#include "context/transport_driver.h"
#include "protocol/event_record.h"
#include "protocol/receive_budget.h"
#include "protocol/record_queue.h"

namespace jrdma {

class ContextLoop {
 public:
  // Every engine's clock runs this often; no sleep lasts longer.
  static constexpr int kTickMs = 100;

  // `adaptive_spin_us`: the longest spin of PollMode::kAdaptive (RdmaConfig.adaptiveSpinMicros);
  // `receive_budget`: bytes being received by rendezvous, all channels (RdmaConfig.receiveBudget).
  // Throws RdmaError with the errno when epoll or the eventfd cannot be created.
  ContextLoop(TransportDriver& driver, uint32_t adaptive_spin_us, uint64_t receive_budget);
  ~ContextLoop();
  ContextLoop(const ContextLoop&) = delete;
  ContextLoop& operator=(const ContextLoop&) = delete;

  // Registers / re-registers a fd; when it is ready the driver's on_ready(tag, events) runs. A fd leaves
  // the set when it is closed.
  void watch(int fd, uint32_t events, void* tag);
  void rewatch(int fd, uint32_t events, void* tag);

  // Waits for work, records or a wake-up as `mode` says and writes up to `capacity` (at least 4)
  // records; runs commands and ticks. A sleep lasts min(timeout_ms, kTickMs) at most (timeout_ms < 0:
  // kTickMs); a busy wait ends at timeout_ms (never when negative) or with records; a busy wait of 0
  // is one pass (the fds looked at every polls_per_fd_check() such passes).
  int wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode);
  // The calling thread is the loop thread from now on (a benchmark's own spin loop).
  void enter() noexcept {
    // Stored only when it changes: a spinning caller enters on every pass, and a store is a fence.
    const std::thread::id self = std::this_thread::get_id();
    if (loop_thread_.load(std::memory_order_relaxed) != self) loop_thread_.store(self);
  }
  bool in_loop_thread() const noexcept { return std::this_thread::get_id() == loop_thread_.load(); }

  // Any thread: ends a sleep or a spin soon (commands to run, Java's tasks).
  void wake() noexcept;
  // Any thread: a record for Java; from another thread it wakes the loop, which hands it over now
  // rather than at its next tick.
  void emit(const EventRecord& record);
  int take_records(EventRecord* out, int capacity) { return records_.take(out, capacity); }

  ReceiveBudget& budget() noexcept { return budget_; }
  // Closes the epoll instance and the eventfd (the destructor does it too); the loop must not run after.
  void close() noexcept;

 private:
  using Clock = std::chrono::steady_clock;

  int busy_wait(EventRecord* out, int capacity, int timeout_ms);
  // Adaptive mode: polls for the learned budget from `idle_since`; true with the records (maybe
  // none) when it found work, false when the budget ran out or a wake-up asks for the loop.
  bool spin_before_sleep(EventRecord* out, int capacity, Clock::time_point idle_since, int* records);
  // The driver's poll, then channels waiting for the receive budget.
  bool poll_transport(int budget);
  // One epoll_wait: ready fds to the driver; a wake-up emits kWakeup and runs the commands. true
  // when a driver's fd was ready; *timed_out (when given): nothing was.
  bool check_fds(int timeout_ms, bool* timed_out = nullptr);
  void retry_budget_waiters();
  void tick_if_due();

  TransportDriver& driver_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  char wake_tag_ = 0;                        // its address marks the eventfd in epoll
  std::atomic<bool> wake_requested_{false};  // set by wake(): a spin gives way to the eventfd
  unsigned single_passes_ = 0;               // loop thread: busy waits of timeout 0 (busy_wait)
  std::atomic<std::thread::id> loop_thread_{};
  AdaptiveSpin spin_;  // loop thread
  Clock::time_point next_tick_{};
  ReceiveBudget budget_;
  // Records for Java, from any thread; the loop hands them over in order.
  RecordQueue records_;
};

}  // namespace jrdma
