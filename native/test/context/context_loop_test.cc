// The context loop both transports run (context/context_loop.h) over a fake driver: who is asked
// what, in which mode, and what comes back to Java. Every wait here ends on an event (a record, a
// ready fd, a wake-up), never on the clock alone: a busy machine cannot fail these tests (the one that
// counts ticks bounds them by the time its passes took).
#include "context/context_loop.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "base/error.h"

namespace jrdma {
namespace {

// A driver whose work comes from a pipe (its fd source) and from `work_on_poll` (its poll source).
class FakeDriver : public TransportDriver {
 public:
  FakeDriver() {
    if (::pipe2(pipe_, O_NONBLOCK | O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  }
  ~FakeDriver() override {
    ::close(pipe_[0]);
    ::close(pipe_[1]);
  }

  bool poll(int) override {
    ++polls;
    if (work_on_poll > 0 && --work_on_poll == 0) {
      if (emit_on_work) loop->emit(make_record(EventKind::kMessage, 7));
      return true;
    }
    return false;
  }
  unsigned polls_per_fd_check() const noexcept override { return fd_every; }
  bool arm_for_sleep(int) override {
    ++arms;
    return work_when_armed;
  }
  void after_sleep() noexcept override { ++after_sleeps; }
  void on_ready(void* tag, uint32_t) override {
    ready_tags.push_back(tag);
    char byte;
    while (::read(pipe_[0], &byte, 1) == 1) {
    }
    loop->emit(make_record(EventKind::kMessage, 9));
  }
  void run_commands() override { ++command_runs; }
  void tick(std::chrono::steady_clock::time_point) override { ++ticks; }
  void retry_budget(uint32_t key) override { retried.push_back(key); }

  void make_fd_ready() { ASSERT_EQ(::write(pipe_[1], "x", 1), 1); }
  int fd() const { return pipe_[0]; }

  ContextLoop* loop = nullptr;
  unsigned fd_every = 1;
  int work_on_poll = 0;  // the poll that finds work (counting down), 0: none does
  bool emit_on_work = true;
  bool work_when_armed = false;
  int polls = 0, arms = 0, after_sleeps = 0, command_runs = 0, ticks = 0;
  std::vector<void*> ready_tags;
  std::vector<uint32_t> retried;

 private:
  int pipe_[2] = {-1, -1};
};

struct ContextLoopTest : ::testing::Test {
  ContextLoopTest() : loop(driver, 100, 1 << 20) { driver.loop = &loop; }
  FakeDriver driver;
  ContextLoop loop;
  EventRecord records[16];
  char tag = 0;
};

TEST_F(ContextLoopTest, AReadyFdGoesToTheDriverWithItsTagAndItsRecordComesBack) {
  loop.watch(driver.fd(), EPOLLIN, &tag);
  driver.make_fd_ready();
  int n = loop.wait_events(records, 16, -1, PollMode::kEvent);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(records[0].key, 9);
  ASSERT_EQ(driver.ready_tags.size(), 1u);
  EXPECT_EQ(driver.ready_tags[0], &tag);
  EXPECT_EQ(driver.arms, 1) << "armed once before the sleep";
  EXPECT_EQ(driver.after_sleeps, 1);
  EXPECT_GE(driver.command_runs, 1) << "commands run at the start of every wait";
  EXPECT_EQ(driver.ticks, 1) << "the first wait ticks the engines";
}

TEST_F(ContextLoopTest, AWakeUpFromAnotherThreadEndsTheSleepWithAWakeupRecordAndRunsTheCommands) {
  std::thread waker([&] { loop.wake(); });
  // Sleeps until the wake-up (a sleep lasts 100 ms at most: it loops until it has the record).
  int n = 0;
  while (n == 0) n = loop.wait_events(records, 16, -1, PollMode::kEvent);
  waker.join();
  ASSERT_EQ(n, 1);
  EXPECT_EQ(records[0].kind, static_cast<int32_t>(EventKind::kWakeup));
  EXPECT_GE(driver.command_runs, 2) << "once at the start, once for the wake-up";
}

TEST_F(ContextLoopTest, ARecordEmittedOnAnotherThreadEndsTheSleep) {
  std::thread emitter([&] { loop.emit(make_record(EventKind::kMessage, 3)); });
  // The record, and the wake-up that came with it (in either batch).
  bool seen = false;
  while (!seen) {
    int n = loop.wait_events(records, 16, -1, PollMode::kEvent);
    for (int i = 0; i < n; ++i)
      seen = seen || (records[i].kind == static_cast<int32_t>(EventKind::kMessage) && records[i].key == 3);
  }
  emitter.join();
}

TEST_F(ContextLoopTest, WorkThatArrivedWhileArmingSkipsTheSleepAndIsPolled) {
  driver.work_when_armed = true;
  driver.work_on_poll = 2;  // the first poll (before arming) finds nothing, the one after the fd check does
  int n = loop.wait_events(records, 16, -1, PollMode::kEvent);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(records[0].key, 7);
  EXPECT_EQ(driver.arms, 1);
  EXPECT_EQ(driver.after_sleeps, 1) << "what arming asked for is undone even without a sleep";
}

TEST_F(ContextLoopTest, TheAdaptiveModeWithoutALearnedBudgetArmsAndSleepsLikeTheEventMode) {
  // The budget starts at zero (how it grows: adaptive_spin_test.cc, which needs no clock).
  driver.work_when_armed = true;
  driver.work_on_poll = 2;
  ASSERT_EQ(loop.wait_events(records, 16, -1, PollMode::kAdaptive), 1);
  EXPECT_EQ(driver.polls, 2) << "one poll before arming, one after the fd check: no spin";
  EXPECT_EQ(driver.arms, 1);
}

TEST_F(ContextLoopTest, TheBusyModeLooksAtTheFdsAsOftenAsTheDriverSays) {
  loop.watch(driver.fd(), EPOLLIN, &tag);
  driver.fd_every = 64;
  driver.make_fd_ready();
  int n = loop.wait_events(records, 16, -1, PollMode::kBusy);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(records[0].key, 9);
  EXPECT_EQ(driver.polls, 64) << "the fd was ready from the start: seen at the first look, after 64 polls";
  EXPECT_EQ(driver.arms, 0) << "the busy mode never arms";
}

TEST_F(ContextLoopTest, ChannelsThatWaitedForTheReceiveBudgetAreRetriedOnceBytesCameBack) {
  ReceiveBudget& budget = loop.budget();
  ASSERT_TRUE(budget.try_take(1 << 20, 1));
  ASSERT_FALSE(budget.try_take(1, 2));
  ASSERT_FALSE(budget.try_take(1, 3));
  budget.give(1 << 20);
  loop.emit(make_record(EventKind::kMessage, 1));  // ends the wait
  driver.work_on_poll = 1;
  loop.wait_events(records, 16, -1, PollMode::kEvent);
  loop.wait_events(records, 16, -1, PollMode::kEvent);
  EXPECT_EQ(driver.retried, (std::vector<uint32_t>{2, 3}));
}

TEST_F(ContextLoopTest, ACapacityBelowFourIsRefused) {
  EXPECT_THROW(loop.wait_events(records, 3, 0, PollMode::kEvent), RdmaError);
}

// PollMode.CALLER's progress(0) spins in Java: each busy wait of 0 is one pass, with no spin or
// sleep of its own; the fds are looked at every polls_per_fd_check() passes (counted across
// calls), or at once when a wake-up is pending.
TEST_F(ContextLoopTest, ABusyWaitOfZeroIsOnePassThatLooksAtTheFdsEveryNthPass) {
  driver.fd_every = 4;
  loop.watch(driver.fd(), EPOLLIN, &tag);
  driver.make_fd_ready();
  for (int pass = 1; pass <= 3; ++pass) {
    EXPECT_EQ(0, loop.wait_events(records, 16, 0, PollMode::kBusy)) << "pass " << pass;
    EXPECT_EQ(pass, driver.polls) << "one poll per pass";
    EXPECT_TRUE(driver.ready_tags.empty()) << "the fds wait for the 4th pass";
  }
  ASSERT_EQ(1, loop.wait_events(records, 16, 0, PollMode::kBusy));
  EXPECT_EQ(static_cast<int32_t>(EventKind::kMessage), records[0].kind);
  EXPECT_EQ(1u, driver.ready_tags.size());
  std::thread other([this] { loop.wake(); });
  other.join();
  ASSERT_EQ(1, loop.wait_events(records, 16, 0, PollMode::kBusy)) << "a pending wake-up is seen at the next pass";
  EXPECT_EQ(static_cast<int32_t>(EventKind::kWakeup), records[0].kind);
  EXPECT_EQ(0, driver.arms) << "never armed: nothing sleeps";
}

// A spinning caller's passes tick the engines every kTickMs, not on every pass (whether the tick is due
// is read from the coarse clock, behind the precise one by a jiffy at most). Bounded by the time the
// passes took, so a stalled machine cannot fail it: more ticks than elapsed tick periods would be a
// tick per pass, and none in a second would be no tick at all.
TEST_F(ContextLoopTest, OnePassesTickOncePerTickPeriod) {
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(0, loop.wait_events(records, 16, 0, PollMode::kBusy));
  ASSERT_EQ(1, driver.ticks) << "the first pass ticks";
  while (driver.ticks < 3 && std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    ASSERT_EQ(0, loop.wait_events(records, 16, 0, PollMode::kBusy));
  }
  const auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(3, driver.ticks) << "ticks go on while a caller spins";
  EXPECT_GE(elapsed_ms, 2 * ContextLoop::kTickMs) << "no more than one tick per period";
  EXPECT_GT(driver.polls, driver.ticks) << "passes between the ticks do not tick";
}

}  // namespace
}  // namespace jrdma
