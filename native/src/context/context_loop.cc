#include "context/context_loop.h"

#include <poll.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/error.h"
#include "context/native_heap.h"

namespace jrdma {

namespace {

uint64_t nanos(std::chrono::steady_clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

// A timed sleep from `start` returned by its timeout: how much later than asked, less the timer slack
// the kernel may add on purpose (prctl(2): 50 us for normal threads), is the price of a wake-up.
uint64_t lateness_ns(std::chrono::steady_clock::time_point start, int timeout_ms) {
  uint64_t slept = nanos(std::chrono::steady_clock::now() - start);
  int slack = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  uint64_t allowed = uint64_t(timeout_ms) * 1'000'000 + (slack > 0 ? uint64_t(slack) : 0);
  return slept > allowed ? slept - allowed : 0;
}

// What a wake-up costs on this machine, measured once per process by two 1 ms sleeps (the lesser
// lateness: noise only adds): each context's adaptive mode starts from it, before its own sleeps
// tell it more.
uint64_t process_sleep_price_ns() {
  static const uint64_t price = [] {
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 2; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (::poll(nullptr, 0, 1) == 0) least = std::min(least, lateness_ns(start, 1));
    }
    return least == UINT64_MAX ? 0 : least;
  }();
  return price;
}

// The kernel's time at its last timer interrupt (CLOCK_MONOTONIC_COARSE): no clock read, so a small
// fraction of a precise one's cost (under emulation a precise read is the most expensive step of an
// empty pass), behind CLOCK_MONOTONIC — steady_clock's clock — by at most one jiffy (1-10 ms). Enough
// to tell whether the 100 ms tick is due on a pass a spinning caller makes millions of times.
std::chrono::steady_clock::time_point coarse_now() noexcept {
  timespec ts{};
  if (::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0) return std::chrono::steady_clock::now();  // (no such clock)
  return std::chrono::steady_clock::time_point(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec)));
}

// A spin looks at its clock every this many passes: the budget is microseconds to milliseconds, a
// pass a fraction of a microsecond.
constexpr unsigned kSpinsPerClockRead = 8;

}  // namespace

ContextLoop::ContextLoop(TransportDriver& driver, uint32_t adaptive_spin_us, uint64_t receive_budget)
    : driver_(driver), spin_(uint64_t{adaptive_spin_us} * 1000), budget_(receive_budget) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw_errno("epoll_create1()", errno);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    int error = errno;
    close();
    throw_errno("eventfd()", error);
  }
  try {
    watch(wake_fd_, EPOLLIN, &wake_tag_);
  } catch (...) {
    close();
    throw;
  }
  spin_.sleep_returned_late(process_sleep_price_ns());
}

ContextLoop::~ContextLoop() { close(); }

void ContextLoop::close() noexcept {
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  epoll_fd_ = wake_fd_ = -1;
}

void ContextLoop::watch(int fd, uint32_t events, void* tag) {
  epoll_event event{};
  event.events = events;
  event.data.ptr = tag;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) throw_errno("epoll_ctl(ADD)", errno);
}

void ContextLoop::rewatch(int fd, uint32_t events, void* tag) {
  epoll_event event{};
  event.events = events;
  event.data.ptr = tag;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &event) != 0) throw_errno("epoll_ctl(MOD)", errno);
}

void ContextLoop::wake() noexcept {
  wake_requested_.store(true, std::memory_order_release);
  uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof one) < 0) {
    // EAGAIN: a wake-up is pending anyway; anything else: the loop still runs commands on its next round
  }
}

void ContextLoop::emit(const EventRecord& record) {
  records_.push(record);
  if (!in_loop_thread()) wake();  // e.g. a close from an application thread: the loop reports it now
}

void ContextLoop::tick_if_due() {
  if (coarse_now() < next_tick_) return;  // (the coarse clock never runs ahead of Clock)
  Clock::time_point now = Clock::now();
  next_tick_ = now + std::chrono::milliseconds(kTickMs);
  driver_.tick(now);
  NativeHeap::trim_if_channels_went(now);
}

// Channels whose rendezvous transfers waited for the receive budget try again once bytes came back
// (from this loop's channels, or from a close on another thread).
void ContextLoop::retry_budget_waiters() {
  for (uint32_t key : budget_.waiters_to_retry()) driver_.retry_budget(key);
}

bool ContextLoop::poll_transport(int budget) {
  bool worked = driver_.poll(budget);
  retry_budget_waiters();
  return worked;
}

bool ContextLoop::check_fds(int timeout_ms, bool* timed_out) {
  epoll_event events[64];
  int ready = ::epoll_wait(epoll_fd_, events, 64, timeout_ms);
  if (ready < 0) {
    if (errno == EINTR) return false;
    throw_errno("epoll_wait()", errno);
  }
  if (timed_out != nullptr) *timed_out = ready == 0;
  bool transport = false;
  bool woken = false;
  for (int i = 0; i < ready; ++i) {
    if (events[i].data.ptr == &wake_tag_) {
      woken = true;
    } else {
      driver_.on_ready(events[i].data.ptr, events[i].events);
      transport = true;
    }
  }
  if (woken) {
    // After the fds: a command may free an object a ready fd of this batch names.
    wake_requested_.store(false, std::memory_order_relaxed);
    uint64_t count;
    if (::read(wake_fd_, &count, sizeof count) == sizeof count)
      emit(make_record(EventKind::kWakeup, 0));  // Java runs its tasks
    driver_.run_commands();
  }
  return transport;
}

int ContextLoop::wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode) {
  if (capacity < 4) throw RdmaError(ErrorKind::kIllegalArgument, "capacity must be at least 4");
  enter();
  driver_.run_commands();
  tick_if_due();
  // Records left from the last round (more than one batch) go first; new work only when none are.
  if (int n = take_records(out, capacity); n > 0) return n;
  if (mode == PollMode::kBusy) return busy_wait(out, capacity, timeout_ms);
  poll_transport(capacity);
  if (int n = take_records(out, capacity); n > 0) return n;
  const Clock::time_point idle_since = Clock::now();  // what ends the idleness is measured from here
  if (mode == PollMode::kAdaptive && spin_.budget_ns(nanos(idle_since.time_since_epoch())) > 0) {
    int n = 0;
    if (spin_before_sleep(out, capacity, idle_since, &n)) return n;
  }
  // Armed, then polled once more by the driver: work that came between the last poll and the arm
  // raises no event, so it must be picked up before sleeping.
  bool work_waiting = driver_.arm_for_sleep(capacity);
  int n = take_records(out, capacity);
  bool transport = false;
  bool timed_out = false;
  if (n == 0) {
    int sleep_ms = work_waiting ? 0 : std::min(timeout_ms < 0 ? kTickMs : timeout_ms, kTickMs);
    Clock::time_point asleep = Clock::now();
    transport = check_fds(sleep_ms, &timed_out);
    if (timed_out && sleep_ms > 0 && mode == PollMode::kAdaptive)
      spin_.sleep_returned_late(lateness_ns(asleep, sleep_ms));
  }
  driver_.after_sleep();
  if (n > 0) return n;
  transport = poll_transport(capacity) || transport;
  if (mode == PollMode::kAdaptive) {
    // Work ended the sleep: had the loop spun from the moment it ran out of work (not only from the
    // sleep's start, after a spin that fell short), it would have caught it. A sleep that ended with
    // nothing says the gap is longer still.
    uint64_t gap = nanos(Clock::now() - idle_since);
    if (transport) {
      spin_.woken_after(gap);
    } else if (timed_out) {
      spin_.idle_for(gap);
    }
  }
  tick_if_due();
  return take_records(out, capacity);
}

bool ContextLoop::spin_before_sleep(EventRecord* out, int capacity, Clock::time_point idle_since, int* records) {
  const auto budget = std::chrono::nanoseconds(spin_.budget_ns(nanos(idle_since.time_since_epoch())));
  const unsigned fd_every = std::max(1u, driver_.polls_per_fd_check());
  for (unsigned spins = 1;; ++spins) {
    bool worked = poll_transport(capacity);
    // Commands and Java's tasks arrive through the eventfd: stop spinning so that they run now.
    if (wake_requested_.load(std::memory_order_acquire)) return false;
    if (spins % fd_every == 0) worked = check_fds(0) || worked;
    *records = take_records(out, capacity);
    if (*records > 0 || worked) {
      spin_.found(nanos(Clock::now() - idle_since));
      return true;
    }
    if (spins % kSpinsPerClockRead == 0) {
      Clock::duration waited = Clock::now() - idle_since;
      if (waited >= budget) {
        spin_.missed(nanos(waited));
        return false;
      }
    }
    // Let other runnable threads of this CPU go first now and then: the application thread that
    // would post the next request, or one spinning on memory the peer writes, may share the CPU.
    // Returns at once when nothing else wants it.
    if ((spins & 15) == 0) sched_yield();
  }
}

int ContextLoop::busy_wait(EventRecord* out, int capacity, int timeout_ms) {
  // The fds (wake-ups, connection events, sockets) are looked at every polls_per_fd_check() spins:
  // each look is a system call — expensive, and very expensive under emulation.
  const unsigned fd_every = std::max(1u, driver_.polls_per_fd_check());
  if (timeout_ms == 0) {
    // One pass, for a caller that spins in a loop of its own (PollMode.CALLER's progress(0)): the
    // fds every polls_per_fd_check() passes, counted across calls, or at once for a pending wake-up.
    poll_transport(capacity);
    if (++single_passes_ % fd_every == 0 || wake_requested_.load(std::memory_order_acquire)) check_fds(0);
    return take_records(out, capacity);
  }
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (unsigned spins = 1;; ++spins) {
    poll_transport(capacity);
    if (spins % fd_every == 0) check_fds(0);
    if (int n = take_records(out, capacity); n > 0) return n;
    if ((spins & 255) == 0) {
      tick_if_due();
      if (int n = take_records(out, capacity); n > 0) return n;
      if (timeout_ms >= 0 && Clock::now() >= deadline) return 0;
      // Idle for a while: let other runnable threads of this CPU go first (an application thread
      // that shares the CPU, e.g. one spinning on memory a peer writes). Returns at once when
      // nothing else wants the CPU.
      sched_yield();
    }
  }
}

}  // namespace jrdma
