// The verbs context: one device (the ibv_context librdmacm uses for it, so rdma_cm ids bind to the
// same device) with its protection domain, completion channel, completion queue and an rdma_cm
// event channel; the table of its channels; and its ContextLoop (context/context_loop.h: epoll,
// wake-ups, records for Java, ticks, poll modes), whose verbs driver it is. Code by concern:
// verbs_context.cc (set-up, teardown, channel table, commands, tick), verbs_connections.cc (rdma_cm:
// listen, connect, accept, connection events), verbs_admission.cc (requests parked for Java's
// admission policy), verbs_driver.cc (polling the CQ and dispatching completions to the channel
// engines, arming, the fds).
//
// Threads: one loop thread (Java's event-loop thread) calls wait_events() and runs everything
// that touches cm ids and queue pairs; other threads create channels, submit work to engines,
// register memory and queue commands (connect, disconnect, destroy), which wake the loop.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "context/adaptive_spin.h"
#include "context/admission_queue.h"
#include "context/channel_table.h"
#include "context/command_queue.h"
#include "context/context_loop.h"
#include "context/context_options.h"
#include "context/pending_connections.h"
#include "context/transport_driver.h"
#include "protocol/event_record.h"
#include "transports/verbs/cm_device.h"
#include "transports/verbs/cm_event_channel.h"
#include "transports/verbs/cm_id.h"
#include "transports/verbs/completion_channel.h"
#include "transports/verbs/completion_queues.h"
#include "transports/verbs/memory_region.h"
#include "transports/verbs/protection_domain.h"
#include "transports/verbs/shared_receive_queues.h"
#include "transports/verbs/verbs_channel_entry.h"
#include "wire/handshake.h"

namespace jrdma {

// A listening rdma_cm id and the options its channels get.
struct VerbsListener {
  verbs::CmId id;
  ChannelOptions options;
  std::atomic<bool> closing{false};
  std::atomic<bool> close_deferred{false};  // its close could not be queued (VerbsContext::enqueue)
  PendingCount pending;                     // accepted requests not established yet (bound: options.max_pending)
};

// A connection request waiting for the listener's admission policy (context/admission_queue.h):
// its rdma_cm id, to be accepted or rejected.
struct AwaitingAdmission : AdmissionRequest {
  verbs::CmId id;
  VerbsListener* listener = nullptr;
};

// Why a request was refused: the reason the client decodes, its detail, and the peer's value for
// the server's own report.
struct Refusal {
  wire::RejectReason reason = wire::RejectReason::kNone;
  uint32_t detail = 0;
  uint32_t peer_value = 0;
};

class VerbsContext : public EventSink, public LoopCommands, private TransportDriver {
 public:
  // VerbsChannelEntry memory blocks kept registered after their channel is gone (bounds the memory a
  // context pins beyond its open channels).
  static constexpr std::size_t kKeptChannelBlocks = 4;

  explicit VerbsContext(const ContextOptions& options);
  ~VerbsContext() override;
  VerbsContext(const VerbsContext&) = delete;
  VerbsContext& operator=(const VerbsContext&) = delete;

  // Waits for completions, async events, connection events, records or a wake-up and writes up
  // to `capacity` records (context/context_loop.h); `mode` says how (context/adaptive_spin.h).
  int wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode);
  // Polls the CQ once without touching any fd (the native benchmark's spin loop); the caller is
  // the loop thread from now on.
  int poll(EventRecord* out, int capacity);
  void wake() noexcept { loop_.wake(); }

  std::unique_ptr<verbs::MemoryRegion> register_memory(void* address, std::size_t length, int access);

  // --- connections (verbs_connections.cc) --------------------------------------------------------
  // Binds and listens now (any thread); throws on failure (address in use, no such address).
  VerbsListener* listen(const sockaddr* address, const ChannelOptions& options, int backlog);
  // Creates an active channel (memory registered, key assigned: records about it can be matched
  // from now on); nothing happens on the wire until connect() queues it.
  VerbsChannelEntry* create_channel(const ChannelOptions& options);
  // Queues the connection attempt for the loop; its outcome arrives as the channel's records.
  void connect(VerbsChannelEntry* channel, const sockaddr_storage& remote, const sockaddr_storage* local,
               int timeout_ms);
  // Queued for the loop: disconnect, forget and free the channel / listener.
  void destroy_channel(VerbsChannelEntry* channel);
  void close_listener(VerbsListener* listener);

  // --- admission (verbs_admission.cc), loop thread only ------------------------------------------
  // The request behind a kAdmissionRequest handle, or null once decided or gone.
  const AwaitingAdmission* awaiting(int64_t handle) const noexcept;
  // Accepts (the channel is created: kIncoming) or refuses with kAdmissionRefused, code and text.
  void decide(int64_t handle, bool accept, uint32_t code, const std::string& text);

  // --- EventSink, LoopCommands ----------------------------------------------------------------
  void emit(const EventRecord& record) override { loop_.emit(record); }
  bool in_loop_thread() const noexcept override { return loop_.in_loop_thread(); }
  void disconnect_later(uint32_t key) noexcept override;

  ibv_context* device() const noexcept { return device_.get(); }
  ibv_pd* pd() const noexcept { return pd_.get(); }
  int cq_capacity() const noexcept { return cqs_.capacity(); }
  int cq_resizes() const noexcept { return cqs_.resizes(); }
  // Buffers of the context's shared receive queues (0: none; each queue pair has its own).
  uint32_t shared_receive_buffers() const noexcept { return shared_queues_.buffers(); }
  // The channel with this key, or null (destroyed, or a stale key). Any thread.
  VerbsChannelEntry* lookup(uint32_t key) const noexcept { return channels_.lookup(key); }

  // Destroys in reverse order of creation. Returns "" or the failures (all steps still run).
  std::string close() noexcept;

 private:
  using Command = LoopCommand<VerbsChannelEntry, VerbsListener>;

  // verbs_context.cc
  // Queues a command and wakes the loop; never loses it (deferred in its object when the queue
  // cannot grow).
  void enqueue(const Command& command) noexcept;
  void run_command(Command& c);
  void run_deferred_commands();
  void forget_pending_of(VerbsListener& listener) noexcept;
  void disconnect_quietly(VerbsChannelEntry& channel) noexcept;
  VerbsChannelEntry* add_channel(const ChannelOptions& options, bool passive);
  // Takes the channel out of the table (it stops counting as pending); the caller deletes it.
  std::unique_ptr<VerbsChannelEntry> remove_channel(VerbsChannelEntry* channel) noexcept;
  // verbs_connections.cc
  void start_connect(VerbsChannelEntry& channel);
  void drain_cm_events();
  void fail_channel_of(const rdma_cm_event* event) noexcept;
  void handle_cm_event(rdma_cm_event* event, std::vector<verbs::CmId>& to_destroy);
  void handle_connect_request(rdma_cm_event* event, std::vector<verbs::CmId>& to_destroy);
  // The accept path: a channel for the request, accepted, or null with why it was refused (the id
  // stays in `owned` then, to be rejected by the caller).
  VerbsChannelEntry* accept_request(VerbsListener* listener, verbs::CmId& owned, const wire::Handshake& peer,
                                    Refusal* refusal);
  void park_for_admission(VerbsListener* listener, verbs::CmId owned, const wire::Handshake& peer,
                          const rdma_cm_event* event, PendingPlace place);
  void refuse_awaiting_of(const VerbsListener* listener) noexcept;
  void fill_conn_param(rdma_conn_param* param, const VerbsChannelEntry& channel, uint8_t* private_data) const;
  void apply_id_options(verbs::CmId& id, const ChannelOptions& options) const;
  bool is_listener(const void* context) noexcept;
  // verbs_driver.cc: the verbs driver (context/transport_driver.h)
  bool poll(int budget) override;
  unsigned polls_per_fd_check() const noexcept override;
  bool arm_for_sleep(int budget) override;
  void on_ready(void* tag, uint32_t events) override;
  void run_commands() override;
  void tick(std::chrono::steady_clock::time_point now) override;
  void retry_budget(uint32_t key) override;
  // Polls up to `budget` completions, hands them to their engines and flushes the engines touched;
  // true when it found any.
  bool poll_cq(int budget);
  int poll_one_cq(ibv_cq* cq, int budget);  // how many it polled; no flush
  // A receive completion of a shared receive queue: copied into its channel's ring and handed to the
  // engine; the buffer goes back to the queue. Its channel, or null when it has none any more.
  VerbsChannelEntry* receive_shared(const ibv_wc& completion);
  // Any other completion, to its channel's engine.
  void dispatch(VerbsChannelEntry& channel, const ibv_wc& completion);
  void flush_dirty_channels();
  void drain_async_events();
  void drain_completion_channel();

  std::string name_;
  verbs::RdmaCmDevice device_;
  const ibv_device_attr attributes_;  // the device's limits, queried once
  verbs::ProtectionDomain pd_;
  verbs::CompletionChannel channel_;
  verbs::CompletionQueues cqs_;
  std::size_t next_cq_ = 0;  // loop thread: the CQ poll_cq starts with (in turn, so none waits behind another)
  RegisteredBlocks blocks_;  // channel memory, kept registered for reuse
  // Shared receive queues by eager size (none when sharedReceiveBuffers is 0 or the device has no
  // SRQ); after the protection domain, before the channels whose queue pairs use them.
  verbs::SharedReceiveQueues shared_queues_;
  verbs::CmEventChannel cm_channel_;
  // What the loop's epoll hands back for the verbs fds (on_ready).
  enum class Source : uint8_t { kCompletion, kAsync, kCm };
  Source sources_[3] = {Source::kCompletion, Source::kAsync, Source::kCm};
  int max_rd_atomic_ = 1;
  uint32_t max_read_ = UINT32_MAX;  // the port's max_msg_sz: the largest rendezvous READ
  // Loop thread: the CQs are armed, no notification read since. They stay unarmed while there is
  // work: arming costs a system call on some devices (rxe).
  bool cq_armed_ = false;
  bool closed_ = false;
  bool device_removed_ = false;  // loop thread: kDeviceRemoved was reported

  PendingConnections pending_;  // before the channels and requests holding places in it
  ContextLoop loop_;            // before the channels: their engines give receive budget back as they go
  ChannelTable<VerbsChannelEntry> channels_;
  std::vector<VerbsChannelEntry*> dirty_;  // loop thread only
  AdmissionQueue<AwaitingAdmission> awaiting_;

  CommandQueue<Command> commands_;
  std::vector<VerbsListener*> listeners_;
  std::mutex listeners_mutex_;
};

}  // namespace jrdma
