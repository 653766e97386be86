// A context without RDMA: channels over TCP connections (tcp_channel.h) with the same channel
// engine, the same loop (context/context_loop.h) and the same records for Java as the verbs
// context, one loop thread (the caller of wait_events) and one memory table. Set-up on the stream,
// before any frame: the client sends its 32-byte handshake, a length byte and that many bytes of
// connect data (at most kMaxConnectData); the server answers with one byte, 0 and its handshake
// (accepted; with a pre-shared key on both sides, then its 16-byte nonce) or 1 and a 12-byte reject
// (an admission refusal adds a length byte and its text) (docs/protocol.md, "TCP transport"). Code
// by concern: tcp_context.cc (set-up calls, its driver of the context loop, commands, ticks),
// tcp_context_setup.cc (connects, hellos, answers), tcp_context_admission.cc (the listener's
// admission policy).
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "context/adaptive_spin.h"
#include "context/admission_queue.h"
#include "context/channel_memory.h"
#include "context/channel_table.h"
#include "context/command_queue.h"
#include "context/connect_target.h"
#include "context/context_loop.h"
#include "context/context_options.h"
#include "context/pending_connections.h"
#include "context/transport_driver.h"
#include "protocol/channel_engine.h"
#include "protocol/event_record.h"
#include "transports/stream/ring_watch.h"
#include "transports/stream/shm_handover.h"
#include "transports/stream/shm_pipe.h"
#include "transports/stream/tcp_channel.h"
#include "transports/stream/tcp_memory.h"
#include "wire/handshake.h"

namespace jrdma::tcp {

// Shared memory with peers on this host (shm_pipe.h): never (transport tcp), when the peer can
// (auto without a device), or for every channel (transport shm: a peer that cannot is refused).
enum class SharedMemory : uint8_t { kOff, kPreferred, kRequired };

// The server's answer to a hello: its first byte.
constexpr uint8_t kAnswerAccepted = 0;
constexpr uint8_t kAnswerRejected = 1;

// What epoll hands back: the first member of every watched object.
enum class Watched : uint8_t { kListener, kHello, kChannel };

struct TcpListener {
  Watched watched = Watched::kListener;
  int fd = -1;
  EngineOptions options;
  uint16_t port = 0;  // the bound port (useful with port 0)
  // Connections not open yet: before their hello, parked for the policy, or proving the key
  // (bound: maxPendingConnections).
  PendingCount pending;
  bool admission = false;                   // Java's admission policy decides on each hello that passed its checks
  std::unique_ptr<ShmHandover> handover;    // same-host clients' rings; null: no shared memory offered
  std::atomic<bool> close_deferred{false};  // its close could not be queued (context/command_queue.h)
};

// An accepted socket before its hello: a few bytes, no channel memory. Anyone who can reach the
// port can open these, so they are bounded per listener and live at most the hello timeout.
struct TcpHello {
  Watched watched = Watched::kHello;
  int fd = -1;
  TcpListener* listener = nullptr;
  uint8_t bytes[wire::kHandshakeSize + 1 + wire::kMaxConnectData + wire::kShmTicketSize] = {};  // handshake,
      // length, connect data, the offered rings' ticket
  std::unique_ptr<ShmPipe> pipe;  // the client's rings once admitted: checked, not mapped
  std::size_t received = 0;
  std::chrono::steady_clock::time_point deadline{};
  PendingPlace place;     // among the pending connections, from its accept on
  bool awaiting = false;  // parked for the admission policy: its socket's events wait for the decision
};

// A hello parked for the admission policy (context/admission_queue.h), out of the hellos saying
// hello: no deadline runs for it, the policy decides at once.
struct TcpAdmission : AdmissionRequest {
  std::unique_ptr<TcpHello> hello;
};

struct TcpChannelEntry {
  TcpChannelEntry(uint32_t channel_key, const EngineOptions& options, EventSink& sink);

  enum class Setup { kCreated, kConnecting, kAwaitingAnswer, kOpen };
  Watched watched = Watched::kChannel;
  const uint32_t key;
  // Receive ring, header slots, atomic results (no registration over TCP). Never unmapped: Java's
  // views of received messages may outlive the channel (context/channel_memory.h).
  OwnedChannelMemory memory;
  ChannelEngine engine;
  std::unique_ptr<TcpChannel> transport;  // from the moment the stream carries frames
  int fd = -1;                            // owned here until the transport takes it
  Setup setup = Setup::kCreated;
  // The server's answer: accepted (handshake and nonce), or a reject (with an admission refusal's text).
  static constexpr std::size_t kMaxAnswer = 1 + wire::kRejectSize + 1 + wire::kMaxRejectText;
  static_assert(kMaxAnswer >= 1 + wire::kAcceptWithNonceSize);
  uint8_t setup_bytes[kMaxAnswer] = {};
  std::size_t setup_received = 0;
  std::chrono::steady_clock::time_point deadline{};
  std::vector<uint8_t> connect_data;          // active side: sent with the hello (set before connect())
  ConnectTarget connect_target;               // active side: set by connect(), read by the loop's start_connect
  std::atomic<uint8_t> deferred_commands{0};  // DeferredCommand bits (context/command_queue.h)
  std::string refusal_text;                   // active side: an admission refusal's text
  std::unique_ptr<ShmPipe> offered;           // active side: the rings handed over for the hello, until answered
  uint16_t remote_port = 0;                   // active side: whose handover socket to offer the rings to
  PendingPlace pending;                       // passive side: still pending while it proves the key
  RingWatchState ring;                        // over shared memory: how the loop looks at its ring (ring_watch.h)
};

class TcpContext : public EventSink, public TransportWaker, private TransportDriver {
 public:
  // The options' transport-neutral part applies (context/context_options.h).
  explicit TcpContext(const ContextOptions& options, SharedMemory shared_memory = SharedMemory::kOff);
  ~TcpContext() override;
  TcpContext(const TcpContext&) = delete;
  TcpContext& operator=(const TcpContext&) = delete;

  // Waits for socket events, records or a wake-up and writes up to `capacity` records; runs the
  // queued commands and the engines' tick (context/context_loop.h); `mode` says how
  // (context/adaptive_spin.h).
  // Channels over shared memory whose rings the loop does not look at until their peer rings (ring_watch.h); any thread.
  std::size_t dozing_rings() const noexcept { return rings_.dozing(); }
  int wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode = PollMode::kEvent) {
    return loop_.wait_events(out, capacity, timeout_ms, mode);
  }
  void wake() noexcept { loop_.wake(); }
  MemoryTable& memory() noexcept { return memory_; }

  // Binds and listens now (any thread); throws RdmaError with the errno (address in use...).
  // `max_pending`: this listener's connections not open yet (maxPendingConnections).
  TcpListener* listen(const sockaddr* address, socklen_t length, const EngineOptions& options, int backlog,
                      uint32_t max_pending = 64, bool admission = false);
  // An active channel with its key; nothing happens on the wire until connect() queues it.
  TcpChannelEntry* create_channel(const EngineOptions& options);
  // `local`: the address to connect from (port 0), or null for the kernel's choice.
  void connect(TcpChannelEntry* channel, const sockaddr_storage& remote, int timeout_ms,
               const sockaddr_storage* local = nullptr);
  // Queued for the loop: close the connection, forget and free the channel / listener.
  void destroy_channel(TcpChannelEntry* channel);
  void close_listener(TcpListener* listener);

  // --- admission (tcp_context_admission.cc), loop thread only --------------------------------------
  // The request behind a kAdmissionRequest handle, or null once decided or gone.
  const TcpAdmission* awaiting(int64_t handle) const noexcept { return awaiting_.find(handle); }
  // Accepts (the channel is created: kIncoming) or refuses with kAdmissionRefused, code and text.
  void decide(int64_t handle, bool accept, uint32_t code, const std::string& text);

  void emit(const EventRecord& record) override { loop_.emit(record); }
  // Tests: how long an accepted socket may take to say hello (5 s).
  void set_hello_timeout(std::chrono::milliseconds timeout) noexcept { hello_timeout_ = timeout; }
  // Connections accepted and not open yet (context/pending_connections.h). Any thread.
  uint32_t pending_connections() const noexcept { return pending_.held(); }
  // A channel's request completed outside the loop's process(): process it again soon.
  void transport_progress(void* cookie) noexcept override;

 private:
  using Command = LoopCommand<TcpChannelEntry, TcpListener>;
  // The stream driver (context/transport_driver.h): sockets through the loop's epoll, the
  // shared-memory rings and the channels whose requests completed off the loop by polling.
  bool poll(int budget) override;
  unsigned polls_per_fd_check() const noexcept override;
  bool arm_for_sleep(int budget) override;
  void after_sleep() noexcept override;
  void on_ready(void* tag, uint32_t events) override;
  void run_commands() override;
  void tick(std::chrono::steady_clock::time_point now) override;
  void retry_budget(uint32_t key) override;
  // Queues a command and wakes the loop; never loses it (deferred in its object when the queue
  // cannot grow).
  void enqueue(const Command& command) noexcept;
  void run_command(const Command& command);
  void run_deferred_commands();
  void start_connect(TcpChannelEntry& channel);
  void accept_all(TcpListener& listener);
  void on_channel_event(TcpChannelEntry& channel);
  void continue_connect(TcpChannelEntry& channel);
  void continue_hello(TcpHello& hello);
  bool read_hello(TcpHello& hello, std::size_t want);
  void admit(TcpHello& hello, const wire::Handshake& peer);
  void open_from_hello(TcpHello& hello, wire::Handshake peer);
  void park_for_admission(TcpHello& hello, const wire::Handshake& peer);
  // Takes a hello out of those saying hello (to be parked), or null when it is not there.
  std::unique_ptr<TcpHello> take_hello(TcpHello& hello) noexcept;
  // Whether that hello is still among those saying hello (the pointer is only compared).
  bool holds(const TcpHello* hello) const noexcept;
  void drop(TcpHello& hello) noexcept;
  bool read_setup(TcpChannelEntry& channel, std::size_t want);
  // The frames go through `rings` when given (shared memory), else through the socket.
  void start_stream(TcpChannelEntry& channel, std::unique_ptr<ShmPipe> rings = nullptr);
  static wire::Handshake handshake_of(const ChannelEngine& engine);
  void connect_failed(TcpChannelEntry& channel, ChannelFailure failure, int status,
                      wire::RejectReason reason = wire::RejectReason::kNone, uint32_t detail = 0);
  void refuse(TcpHello& hello, wire::RejectReason reason, uint32_t detail, uint32_t peer_value);
  static void send_reject(int fd, wire::RejectReason reason, uint32_t detail) noexcept;
  void forget(TcpChannelEntry* channel);
  // A channel that was proving its key stops counting as pending once it opened or closed.
  void settle_pending(TcpChannelEntry& channel) noexcept;
  void refuse_awaiting_of(const TcpListener* listener) noexcept;
  // Process a channel's input and flush what its engine has to send.
  void process(TcpChannelEntry& channel);
  void watch(int fd, void* object);

  PendingConnections pending_;  // before the channels, hellos and requests holding places in it
  ContextLoop loop_;            // before the channels: their engines give receive budget back as they go
  MemoryTable memory_;
  ChannelTable<TcpChannelEntry> channels_{"the TCP context"};  // created on any thread, freed by the loop
  std::mutex listeners_mutex_;                                 // listeners_ (created on any thread, closed by the loop)
  std::vector<std::unique_ptr<TcpListener>> listeners_;
  CommandQueue<Command> commands_;
  std::chrono::milliseconds hello_timeout_{5000};
  std::vector<std::unique_ptr<TcpHello>> hellos_;  // loop thread
  AdmissionQueue<TcpAdmission> awaiting_;          // loop thread
  std::mutex progressed_mutex_;
  std::vector<uint32_t> progressed_;   // keys of channels to process again
  std::vector<uint32_t> progressing_;  // loop thread
  const SharedMemory shared_memory_;
  RingWatch<TcpChannelEntry> rings_;  // loop thread: channels whose frames go through rings
  bool rings_armed_ = false;          // loop thread: peers over shared memory were asked to ring before a sleep
  // Processes the channels whose requests completed off the loop; true when there were any.
  bool process_progressed();
  // The channel with this key, or null (gone, or a stale key). Loop thread (which frees channels).
  TcpChannelEntry* find(uint32_t key) const noexcept { return channels_.lookup(key); }
  // A channel's engine options with this context's receive budget.
  EngineOptions with_budget(const EngineOptions& options) noexcept;
};

}  // namespace jrdma::tcp
