// Commands other threads hand a context's loop (connect, disconnect, destroy a channel, close a
// listener), the same for every transport. Queuing never fails the caller and never loses a
// command: when the queue cannot grow (bad_alloc) the context marks the command in its object
// (DeferredCommand bits on the channel, a flag on the listener) and the loop finds it there after
// the queued ones. A lost connect would never be answered, a lost destroy would leak.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <new>
#include <vector>

#include "context/channel_table.h"

namespace jrdma {

// A command kept in its channel because the queue could not take it.
enum DeferredCommand : uint8_t { kDeferredConnect = 1, kDeferredDisconnect = 2, kDeferredDestroy = 4 };

// What another thread asks of a context's loop; `Channel` and `Listener` are the transport's types
// (each with `std::atomic<uint8_t> deferred_commands` and `std::atomic<bool> close_deferred`). A
// disconnect names its channel by key: the channel may be gone when it runs.
template <typename Channel, typename Listener>
struct LoopCommand {
  enum Kind { kConnect, kDisconnect, kDestroyChannel, kCloseListener } kind;
  Channel* channel = nullptr;
  Listener* listener = nullptr;
  uint32_t key = 0;
};

// Keeps a command the queue could not take in its object: a DeferredCommand bit in the channel
// (found by key for a disconnect, through `lookup`), the flag in the listener.
template <typename Channel, typename Listener, typename Lookup>
void keep_in_object(const LoopCommand<Channel, Listener>& command, Lookup&& lookup) noexcept {
  using Command = LoopCommand<Channel, Listener>;
  switch (command.kind) {
    case Command::kConnect:
      command.channel->deferred_commands.fetch_or(kDeferredConnect);
      break;
    case Command::kDestroyChannel:
      command.channel->deferred_commands.fetch_or(kDeferredDestroy);
      break;
    case Command::kDisconnect:
      if (Channel* channel = lookup(command.key)) channel->deferred_commands.fetch_or(kDeferredDisconnect);
      break;
    case Command::kCloseListener:
      command.listener->close_deferred = true;
      break;
  }
}

// Loop thread: runs the commands kept in the channels (after the queued ones, so that a queued
// connect precedes a kept destroy of the same channel), each channel's in the order connect,
// disconnect, destroy — the last frees it. What `run` throws stops only that command.
template <typename Channel, typename Listener, typename Run>
void run_kept_in_channels(const ChannelTable<Channel>& channels, Run&& run) {
  using Command = LoopCommand<Channel, Listener>;
  channels.for_each([&](Channel& channel) {
    uint8_t kept = channel.deferred_commands.exchange(0);
    for (uint8_t bit : {kDeferredConnect, kDeferredDisconnect, kDeferredDestroy}) {
      if ((kept & bit) == 0) continue;
      Command c{};
      c.kind = bit == kDeferredConnect   ? Command::kConnect
               : bit == kDeferredDestroy ? Command::kDestroyChannel
                                         : Command::kDisconnect;
      c.channel = &channel;
      c.key = channel.key;
      try {
        run(c);
      } catch (const std::exception&) {
        // as in CommandQueue::run
      }
    }
  });
}

template <typename Command>
class CommandQueue {
 public:
  // Queues the command (any thread); false when the queue could not grow: the caller marks the
  // command in its object, and run() reports that some were.
  bool push(const Command& command) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      queued_.push_back(command);
      queued_any_.store(true, std::memory_order_release);
      return true;
    } catch (const std::exception&) {
      deferred_.store(true, std::memory_order_release);
      return false;
    }
  }

  // Loop thread: runs fn(command) for every queued command in order, whatever one of them throws;
  // true when commands were deferred since the last run (the caller runs them from their objects).
  // Nothing queued and nothing deferred costs two loads, not the lock: every pass of the loop comes
  // here (a command pushed just after them is run at the next pass; its push wakes the loop anyway).
  template <typename Fn>
  bool run(Fn&& fn) {
    if (!queued_any_.load(std::memory_order_acquire) && !deferred_.load(std::memory_order_acquire)) return false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queued_any_.store(false, std::memory_order_relaxed);
      running_.swap(queued_);  // the queue gets the last batch's capacity: push rarely allocates
    }
    for (Command& command : running_) {
      try {
        fn(command);
      } catch (const std::exception&) {
        // Reporting the failure itself failed (out of memory): nothing more to do for this command
      }
    }
    running_.clear();
    return deferred_.exchange(false);
  }

  // The context's close: queued commands only point at objects it frees itself.
  void clear() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    queued_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<Command> queued_;          // guarded by mutex_
  std::atomic<bool> queued_any_{false};  // queued_ is not empty (set and cleared under mutex_)
  std::vector<Command> running_;         // loop thread: the batch being run (swapped, so both keep their capacity)
  std::atomic<bool> deferred_{false};
};

// Loop thread: closes the listeners whose close was kept in them, one at a time. `listeners` holds
// pointers (or owning pointers) to them, guarded by `mutex`; `close(listener)` removes one from it.
// What it throws stops only that close (the listener then stays until the context closes).
template <typename Listeners, typename Close>
void run_kept_in_listeners(Listeners& listeners, std::mutex& mutex, Close&& close) {
  for (;;) {
    decltype(&*listeners.front()) closing = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto& listener : listeners) {
        if (listener->close_deferred.exchange(false)) {
          closing = &*listener;
          break;
        }
      }
    }
    if (closing == nullptr) return;
    try {
      close(closing);
    } catch (const std::exception&) {
      // as in CommandQueue::run
    }
  }
}

}  // namespace jrdma
