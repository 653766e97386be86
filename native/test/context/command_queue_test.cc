// The command queue both contexts use: every command runs in order whatever one throws, and a
// command the queue could not take is kept in its object and run from there, in an order that
// frees a channel last.
#include "context/command_queue.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace jrdma {
namespace {

struct FakeChannel {
  explicit FakeChannel(uint32_t k) : key(k) {}
  const uint32_t key;
  std::atomic<uint8_t> deferred_commands{0};
};

struct FakeListener {
  std::atomic<bool> close_deferred{false};
};

using Command = LoopCommand<FakeChannel, FakeListener>;

TEST(CommandQueue, EveryQueuedCommandRunsInOrderWhateverOneThrows) {
  CommandQueue<int> queue;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(queue.push(i));
  std::vector<int> ran;
  bool deferred = queue.run([&](int& c) {
    ran.push_back(c);
    if (c == 2) throw std::runtime_error("command 2 fails");
  });
  EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(deferred) << "nothing was kept in an object";
  ran.clear();
  EXPECT_FALSE(queue.run([&](int& c) { ran.push_back(c); }));
  EXPECT_TRUE(ran.empty()) << "a batch runs once";
}

TEST(CommandQueue, ACommandKeptInItsChannelRunsFromThereConnectFirstDestroyLast) {
  ChannelTable<FakeChannel> channels("test");
  FakeChannel* a = channels.insert([](uint32_t key) { return std::make_unique<FakeChannel>(key); });
  FakeChannel* b = channels.insert([](uint32_t key) { return std::make_unique<FakeChannel>(key); });
  auto lookup = [&](uint32_t key) { return channels.lookup(key); };
  keep_in_object(Command{Command::kDestroyChannel, a, nullptr, a->key}, lookup);
  keep_in_object(Command{Command::kConnect, a, nullptr, a->key}, lookup);
  keep_in_object(Command{Command::kDisconnect, nullptr, nullptr, a->key}, lookup);   // by key
  keep_in_object(Command{Command::kDisconnect, nullptr, nullptr, 0x70000}, lookup);  // nobody's key: dropped
  std::vector<std::string> ran;
  run_kept_in_channels<FakeChannel, FakeListener>(channels, [&](Command& c) {
    ASSERT_EQ(c.channel, a);
    ASSERT_EQ(c.key, a->key);
    ran.push_back(c.kind == Command::kConnect ? "connect" : c.kind == Command::kDisconnect ? "disconnect" : "destroy");
  });
  EXPECT_EQ(ran, (std::vector<std::string>{"connect", "disconnect", "destroy"}));
  EXPECT_EQ(b->deferred_commands.load(), 0);
  ran.clear();
  run_kept_in_channels<FakeChannel, FakeListener>(channels, [&](Command&) { ran.push_back("again"); });
  EXPECT_TRUE(ran.empty()) << "a kept command runs once";
}

TEST(CommandQueue, AListenerCloseKeptInTheListenerRunsOnceEvenIfItThrows) {
  std::vector<std::unique_ptr<FakeListener>> listeners;
  listeners.push_back(std::make_unique<FakeListener>());
  listeners.push_back(std::make_unique<FakeListener>());
  std::mutex mutex;
  keep_in_object(Command{Command::kCloseListener, nullptr, listeners[1].get(), 0},
                 [](uint32_t) -> FakeChannel* { return nullptr; });
  keep_in_object(Command{Command::kCloseListener, nullptr, listeners[0].get(), 0},
                 [](uint32_t) -> FakeChannel* { return nullptr; });
  int closes = 0;
  run_kept_in_listeners(listeners, mutex, [&](FakeListener* listener) {
    ++closes;
    if (listener == listeners[0].get()) throw std::runtime_error("its close fails");
    listeners.erase(listeners.begin() + 1);  // a close takes the listener out
  });
  EXPECT_EQ(closes, 2);
  EXPECT_EQ(listeners.size(), 1u);
  EXPECT_FALSE(listeners[0]->close_deferred.load()) << "a failed close is not retried forever";
}

}  // namespace
}  // namespace jrdma
