// What a transport does for its context's loop (context_loop.h): only what differs between
// transports. The loop decides when to poll, spin, arm and sleep, when to tick and when to run
// commands; the driver knows where work comes from — the verbs driver from its completion queue,
// completion channel, async events and rdma_cm events; the stream driver from its sockets,
// shared-memory rings and channels whose requests completed off the loop. Like Netty's IoHandler
// under one event loop. Every method runs on the loop thread.
#pragma once

#include <chrono>
#include <cstdint>

namespace jrdma {

class TransportDriver {
 public:
  virtual ~TransportDriver() = default;

  // One pass over what the driver sees without a system call (a completion queue, shared-memory
  // rings, channels whose requests completed off the loop), at most `budget` completions; true
  // when it found work, even work that makes no record for Java (a peer's one-sided request).
  virtual bool poll(int budget) = 0;
  // While spinning, how many poll()s per look at the fds (epoll_wait is a system call: cheap next to
  // a socket read, expensive next to a user-space CQ poll).
  virtual unsigned polls_per_fd_check() const noexcept = 0;
  // Before a sleep: asks to be woken by new work (arms the CQ; asks shared-memory peers to ring the
  // socket). true when work arrived meanwhile: the loop looks at the fds without sleeping then.
  virtual bool arm_for_sleep(int budget) = 0;
  // After the sleep (or its skipped check): undoes what arm_for_sleep asked that must not stay.
  virtual void after_sleep() noexcept {}
  // A fd the driver registered (ContextLoop::watch) is ready; `tag` is what it registered with,
  // `events` the epoll events (EPOLLIN, EPOLLRDHUP...).
  virtual void on_ready(void* tag, uint32_t events) = 0;
  // Runs the commands other threads queued (connect, destroy, close a listener).
  virtual void run_commands() = 0;
  // Every 100 ms: the engines' clocks (keepalive, graceful close, timeouts) and set-up deadlines.
  virtual void tick(std::chrono::steady_clock::time_point now) = 0;
  // The channel with this key waited for the receive budget and may go on (it may be gone).
  virtual void retry_budget(uint32_t key) = 0;
};

}  // namespace jrdma
