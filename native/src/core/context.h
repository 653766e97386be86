// A context: one opened device with its protection domain, completion channel, completion queue
// and the event loop's file descriptors (epoll over the completion channel, the device's async
// event fd and an eventfd for wake-ups). One thread (the Java event-loop thread) calls
// wait_events(); any thread may call wake() and register memory.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <memory>
#include <string>

#include "core/event_record.h"
#include "verbs/completion_channel.h"
#include "verbs/completion_queue.h"
#include "verbs/device_context.h"
#include "verbs/memory_region.h"
#include "verbs/protection_domain.h"

namespace jrdma {

struct ContextOptions {
  std::string device_name;
  int port = 1;
  int cq_entries = 4096;
};

class Context {
 public:
  // Opens the device and creates everything; throws RdmaError naming the failing call.
  explicit Context(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Waits for completions, async events or a wake-up and writes up to `capacity` records.
  // timeout_ms < 0 waits without limit; busy_poll spins on the CQ instead of sleeping.
  // Returns the number of records (0 on timeout).
  int wait_events(EventRecord* out, int capacity, int timeout_ms, bool busy_poll);

  // Makes a concurrent or later wait_events() return with a kWakeup record.
  void wake();

  // Registers [address, address+length) with the given IBV_ACCESS_* flags.
  std::unique_ptr<verbs::MemoryRegion> register_memory(void* address, std::size_t length, int access);

  ibv_context* device() const noexcept { return device_.get(); }
  ibv_pd* pd() const noexcept { return pd_.get(); }
  ibv_cq* cq() const noexcept { return cq_.get(); }
  int cq_capacity() const noexcept { return cq_.capacity(); }

  // Destroys in reverse order of creation. Returns "" or the failures (all steps still run).
  std::string close() noexcept;

 private:
  int poll_cq(EventRecord* out, int capacity);
  int drain_async_events(EventRecord* out, int capacity);
  void drain_completion_channel();

  std::string name_;
  verbs::DeviceContext device_;
  verbs::ProtectionDomain pd_;
  verbs::CompletionChannel channel_;
  verbs::CompletionQueue cq_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  bool poll_pending_ = true;  // the CQ may hold completions not yet polled
  bool closed_ = false;
};

}  // namespace jrdma
