// A context: one device (the ibv_context librdmacm uses for it, so rdma_cm ids bind to the same
// device) with its protection domain, completion channel, completion queue, an rdma_cm event
// channel, and one epoll instance over the completion channel, the device's async-event fd, the
// rdma_cm fd and an eventfd for wake-ups. One thread (the Java event-loop thread) calls
// wait_events() and everything that creates or destroys channels; other threads post work
// requests on channels, register memory, and queue commands (connect, destroy) for the loop.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/channel.h"
#include "core/event_record.h"
#include "verbs/completion_channel.h"
#include "verbs/completion_queue.h"
#include "verbs/memory_region.h"
#include "verbs/protection_domain.h"

namespace jrdma {

struct ContextOptions {
  std::string device_name;
  int port = 1;
  int cq_entries = 4096;
};

// A listening rdma_cm id and the options its channels get.
struct Listener {
  rdma_cm_id* id = nullptr;
  ChannelOptions options;
  bool closing = false;
};

// The ibv_context librdmacm opened for a device (owned by librdmacm; rdma_free_devices releases
// the list). Opening by name here keeps the PD/CQ usable with the rdma_cm ids of that device.
class RdmaCmDevice {
 public:
  explicit RdmaCmDevice(const std::string& name);
  ~RdmaCmDevice();
  RdmaCmDevice(const RdmaCmDevice&) = delete;
  RdmaCmDevice& operator=(const RdmaCmDevice&) = delete;
  ibv_context* get() const noexcept { return context_; }

 private:
  ibv_context** list_ = nullptr;
  ibv_context* context_ = nullptr;
};

class Context {
 public:
  explicit Context(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Waits for completions, async events, connection events or a wake-up and writes up to
  // `capacity` records. timeout_ms < 0 waits without limit; busy_poll spins on the CQ.
  int wait_events(EventRecord* out, int capacity, int timeout_ms, bool busy_poll);
  // Polls the CQ once without touching any fd (for callers that drive several contexts).
  int poll_completions(EventRecord* out, int capacity);
  void wake();

  std::unique_ptr<verbs::MemoryRegion> register_memory(void* address, std::size_t length, int access);

  // --- connections -----------------------------------------------------------------------------
  // Binds and listens now (any thread); throws on failure (address in use, no such address).
  Listener* listen(const sockaddr* address, const ChannelOptions& options, int backlog);
  // Creates an active channel; nothing happens on the wire until connect() queues it, so the
  // caller can register the channel before the first record about it can arrive.
  Channel* create_channel(const ChannelOptions& options);
  // Queues the connection attempt for the loop; results arrive as records.
  void connect(Channel* channel, const sockaddr_storage& remote, const sockaddr_storage* local, int timeout_ms);
  // Loop thread, after kChannelReady: receive memory is registered; post receives, accept or connect.
  void accept(Channel* channel, uint64_t receive_address, uint32_t lkey);
  void continue_connect(Channel* channel, uint64_t receive_address, uint32_t lkey);
  void reject(Channel* channel, wire::RejectReason reason, uint32_t detail);
  // Queued for the loop: disconnect, forget and free the channel / listener.
  void destroy_channel(Channel* channel);
  void close_listener(Listener* listener);

  // CQ entries for channels; the CQ grows (ibv_resize_cq) when they exceed it.
  void reserve_cq_entries(int entries);
  void release_cq_entries(int entries) noexcept;

  ibv_context* device() const noexcept { return device_.get(); }
  ibv_pd* pd() const noexcept { return pd_.get(); }
  ibv_cq* cq() const noexcept { return cq_.get(); }
  int cq_capacity() const noexcept { return cq_.capacity(); }

  // Destroys in reverse order of creation. Returns "" or the failures (all steps still run).
  std::string close() noexcept;

 private:
  struct Command {
    enum Kind { kConnect, kDestroyChannel, kCloseListener } kind;
    Channel* channel = nullptr;
    Listener* listener = nullptr;
    sockaddr_storage remote{};
    sockaddr_storage local{};
    bool has_local = false;
    int timeout_ms = 0;
  };

  int poll_cq(EventRecord* out, int capacity);
  int busy_wait(EventRecord* out, int capacity, int timeout_ms);
  int check_fds(EventRecord* out, int capacity, int timeout_ms);
  int drain_async_events(EventRecord* out, int capacity);
  void drain_completion_channel();
  int drain_cm_events(EventRecord* out, int capacity);
  void handle_cm_event(rdma_cm_event* event, EventRecord* out, int& n, std::vector<rdma_cm_id*>& to_destroy);
  void handle_connect_request(rdma_cm_event* event, EventRecord* out, int& n, std::vector<rdma_cm_id*>& to_destroy);
  void enqueue(const Command& command);
  int run_commands(EventRecord* out, int capacity);
  uint32_t insert_channel(Channel* channel);
  Channel* lookup(uint32_t key) const noexcept;
  void remove_channel(Channel* channel) noexcept;
  void fill_conn_param(rdma_conn_param* param, const Channel& channel, uint8_t* private_data) const;
  void apply_id_options(rdma_cm_id* id, const ChannelOptions& options) const;

  std::string name_;
  RdmaCmDevice device_;
  verbs::ProtectionDomain pd_;
  verbs::CompletionChannel channel_;
  verbs::CompletionQueue cq_;
  rdma_event_channel* cm_channel_ = nullptr;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  int max_rd_atomic_ = 1;
  int reserved_cq_entries_ = 0;
  bool poll_pending_ = true;  // the CQ may hold completions not yet polled
  bool closed_ = false;

  // Channel table, touched only by the loop thread: index = key & 0xffff, generation = key >> 16.
  std::vector<Channel*> table_;
  std::vector<uint16_t> generations_;
  std::vector<uint32_t> free_indexes_;

  std::mutex commands_mutex_;
  std::vector<Command> commands_;
  std::vector<Listener*> listeners_;  // loop thread only (besides listen())
  std::mutex listeners_mutex_;
};

}  // namespace jrdma
