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

namespace jrdma {

// A command kept in its channel because the queue could not take it.
enum DeferredCommand : uint8_t { kDeferredConnect = 1, kDeferredDisconnect = 2, kDeferredDestroy = 4 };

template <typename Command>
class CommandQueue {
 public:
  // Queues the command (any thread); false when the queue could not grow: the caller marks the
  // command in its object, and run() reports that some were.
  bool push(const Command& command) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      queued_.push_back(command);
      return true;
    } catch (const std::exception&) {
      deferred_.store(true, std::memory_order_release);
      return false;
    }
  }

  // Loop thread: runs fn(command) for every queued command in order, whatever one of them throws;
  // true when commands were deferred since the last run (the caller runs them from their objects).
  // Nothing queued and nothing deferred costs the lock only: every turn of the loop comes here.
  template <typename Fn>
  bool run(Fn&& fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queued_.empty() && !deferred_.load(std::memory_order_acquire)) return false;
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
  std::vector<Command> queued_;   // guarded by mutex_
  std::vector<Command> running_;  // loop thread: the batch being run (swapped, so both keep their capacity)
  std::atomic<bool> deferred_{false};
};

}  // namespace jrdma
