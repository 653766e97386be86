#include "transports/stream/tcp_context.h"

#include <netinet/in.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"

namespace jrdma::tcp {

TcpChannelEntry::TcpChannelEntry(uint32_t channel_key, const EngineOptions& options, EventSink& sink)
    : key(channel_key),
      memory(ChannelMemoryLayout::of(options.depth, options.eager).size),
      engine(channel_key, options, ChannelMemory{memory.data(), memory.size()}, sink) {}

TcpContext::TcpContext(const ContextOptions& options, SharedMemory shared_memory)
    : pending_(options.max_pending_connections),
      loop_(*this, options.adaptive_spin_us, options.receive_budget),
      shared_memory_(shared_memory) {}

TcpContext::~TcpContext() {
  channels_.clear();  // transports close their sockets
  for (auto& hello : hellos_) ::close(hello->fd);
  awaiting_.refuse_each([](const TcpAdmission&) { return true; },
                        [](TcpAdmission& request) { ::close(request.hello->fd); });
  for (auto& listener : listeners_) ::close(listener->fd);
}

void TcpContext::watch(int fd, void* object) {
  // Edge-triggered: process() drains both ways.
  loop_.watch(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, object);
}

void TcpContext::transport_progress(void* cookie) noexcept {
  try {
    std::lock_guard<std::mutex> lock(progressed_mutex_);
    progressed_.push_back(static_cast<TcpChannelEntry*>(cookie)->key);
  } catch (const std::bad_alloc&) {
    // the next event or tick of the channel hands the completion over
  }
  if (!loop_.in_loop_thread()) wake();
}

// Channels whose requests completed outside process() (posted from the engine's flush, or from an
// application thread): process them until none is left, a few rounds at most per poll.
bool TcpContext::process_progressed() {
  bool any = false;
  for (int round = 0; round < 8; ++round) {
    {
      std::lock_guard<std::mutex> lock(progressed_mutex_);
      if (progressed_.empty()) return any;
      progressing_.swap(progressed_);
    }
    any = true;
    for (uint32_t key : progressing_) {
      TcpChannelEntry* channel = find(key);
      if (channel != nullptr && channel->transport) process(*channel);
    }
    progressing_.clear();
  }
  return any;
}

// ---- set-up calls (any thread) ------------------------------------------------------------------

TcpListener* TcpContext::listen(const sockaddr* address, socklen_t length, const EngineOptions& options, int backlog,
                                uint32_t max_pending, bool admission) {
  auto listener = std::make_unique<TcpListener>();
  listener->options = options;
  listener->pending.bound = max_pending;
  listener->admission = admission;
  listener->fd = ::socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listener->fd < 0) throw_errno("socket()", errno);
  int one = 1;
  ::setsockopt(listener->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listener->fd, address, length) != 0 || ::listen(listener->fd, backlog) != 0) {
    int error = errno;
    ::close(listener->fd);
    throw_errno("binding and listening on the TCP address", error);
  }
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  ::getsockname(listener->fd, reinterpret_cast<sockaddr*>(&bound), &bound_length);
  listener->port = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);  // same offset for IPv6
  if (shared_memory_ != SharedMemory::kOff) {
    try {
      listener->handover = std::make_unique<ShmHandover>(listener->port, max_pending);
    } catch (const RdmaError&) {
      // Another listener of this host holds this port's handover name: its clients stay on TCP.
    }
  }
  TcpListener* raw = listener.get();
  {
    std::lock_guard<std::mutex> lock(listeners_mutex_);
    listeners_.push_back(std::move(listener));
  }
  loop_.watch(raw->fd, EPOLLIN, raw);
  return raw;
}

TcpChannelEntry* TcpContext::create_channel(const EngineOptions& options) {
  EngineOptions own = with_budget(options);
  return channels_.insert([&](uint32_t key) { return std::make_unique<TcpChannelEntry>(key, own, *this); });
}

void TcpContext::connect(TcpChannelEntry* channel, const sockaddr_storage& remote, int timeout_ms,
                         const sockaddr_storage* local) {
  channel->connect_target.remote = remote;
  if (local != nullptr) {
    channel->connect_target.local = *local;
    channel->connect_target.has_local = true;
  }
  channel->connect_target.timeout_ms = timeout_ms;
  enqueue(Command{Command::kConnect, channel, nullptr});
}

void TcpContext::destroy_channel(TcpChannelEntry* channel) { enqueue(Command{Command::kDestroyChannel, channel}); }

void TcpContext::close_listener(TcpListener* listener) { enqueue(Command{Command::kCloseListener, nullptr, listener}); }

void TcpContext::enqueue(const Command& command) noexcept {
  if (!commands_.push(command)) keep_in_object(command, [this](uint32_t key) { return find(key); });
  wake();
}

// ---- the stream driver (context/transport_driver.h) -------------------------------------------

bool TcpContext::poll(int) {
  // Frames that came through shared memory raise no epoll event: the awake rings are looked at.
  bool worked = rings_.poll([this](TcpChannelEntry& channel) { on_channel_event(channel); });
  return process_progressed() || worked;
}

// Without rings to look at the sockets are the transport: epoll is looked at on every spin. With
// awake rings, they are polled in user space and epoll (a system call) every 16th spin.
unsigned TcpContext::polls_per_fd_check() const noexcept { return rings_.awake() == 0 ? 1 : 16; }

// Before a sleep, peers over shared memory are asked to ring the socket when they write (those of
// dozing channels were asked when they began to doze).
bool TcpContext::arm_for_sleep(int) {
  if (rings_.awake() == 0) return false;
  rings_armed_ = true;
  return rings_.arm_awake();
}

void TcpContext::after_sleep() noexcept {
  if (!rings_armed_) return;
  rings_armed_ = false;
  rings_.disarm_awake();
}

void TcpContext::on_ready(void* object, uint32_t events) {
  switch (*static_cast<Watched*>(object)) {
    case Watched::kListener:
      accept_all(*static_cast<TcpListener*>(object));
      break;
    case Watched::kHello:
      continue_hello(*static_cast<TcpHello*>(object));
      break;
    case Watched::kChannel: {
      auto& channel = *static_cast<TcpChannelEntry*>(object);
      if (channel.transport != nullptr) {
        if ((events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) channel.transport->peer_hung_up();
        if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) channel.transport->socket_readable();
        channel.transport->drain_wakeups();
        rings_.wake(&channel);  // a dozing channel's peer rang: its ring is looked at again
      }
      on_channel_event(channel);
      break;
    }
  }
}

EngineOptions TcpContext::with_budget(const EngineOptions& options) noexcept {
  EngineOptions own = options;
  own.budget = &loop_.budget();
  return own;
}

void TcpContext::retry_budget(uint32_t key) {
  if (TcpChannelEntry* channel = find(key)) {
    channel->engine.retry_budget();
    channel->engine.flush();
  }
}

void TcpContext::run_commands() {
  if (commands_.run([this](const Command& c) { run_command(c); })) run_deferred_commands();
}

void TcpContext::run_command(const Command& c) {
  switch (c.kind) {
    case Command::kConnect:
      start_connect(*c.channel);
      break;
    case Command::kDestroyChannel:
      forget(c.channel);
      break;
    case Command::kDisconnect:
      break;  // never queued here: the stream engine ends its connection itself (no LoopCommands)
    case Command::kCloseListener: {
      // Its connections still saying hello or parked for the admission policy point at it: they
      // are told the server is closing, as over verbs, and go before it does.
      std::vector<TcpHello*> orphans;
      for (auto& hello : hellos_) {
        if (hello->listener == c.listener) orphans.push_back(hello.get());
      }
      for (TcpHello* hello : orphans) {
        send_reject(hello->fd, wire::RejectReason::kServerClosing, 0);
        drop(*hello);
      }
      refuse_awaiting_of(c.listener);
      std::lock_guard<std::mutex> lock(listeners_mutex_);
      for (auto it = listeners_.begin(); it != listeners_.end(); ++it) {
        if (it->get() == c.listener) {
          ::close(c.listener->fd);  // leaves the epoll set with it
          // Channels proving the key stay pending for the context, no longer for the listener.
          channels_.for_each([&](TcpChannelEntry& channel) {
            if (channel.pending.at(c.listener->pending)) channel.pending.leave_listener();
          });
          listeners_.erase(it);
          break;
        }
      }
      break;
    }
  }
}

// The commands enqueue could not queue, found in their objects; after the queued ones, so a
// queued connect precedes a deferred destroy of the same channel.
void TcpContext::run_deferred_commands() {
  run_kept_in_channels<TcpChannelEntry, TcpListener>(channels_, [this](const Command& c) { run_command(c); });
  run_kept_in_listeners(listeners_, listeners_mutex_, [this](TcpListener* listener) {
    run_command(Command{Command::kCloseListener, nullptr, listener});
  });
}

// Every 100 ms: the engines' own clocks (graceful close, keepalive, timeouts) and set-up deadlines.
void TcpContext::tick(std::chrono::steady_clock::time_point now) {
  rings_.tick([this](TcpChannelEntry& channel) { on_channel_event(channel); });  // a doorbell that did not come
  channels_.for_each([&](TcpChannelEntry& channel) {
    if (channel.setup == TcpChannelEntry::Setup::kOpen) {
      channel.engine.tick(now);
      channel.engine.flush();
      if (channel.transport) channel.transport->trim_if_idle();
      settle_pending(channel);  // a proof that timed out
    } else if (channel.fd >= 0 && now > channel.deadline && !channel.engine.closed()) {
      connect_failed(channel, ChannelFailure::kUnreachable, ETIMEDOUT);
    }
  });
  // Accepted sockets that never said hello: they go without a report. The bytes of a hello past its
  // deadline may be waiting unread — this loop was late (a burst of connects on a busy host), not the
  // peer — so each is read once more first; one still incomplete goes.
  std::vector<TcpHello*> expired;
  for (auto& hello : hellos_) {
    if (now > hello->deadline) expired.push_back(hello.get());
  }
  for (TcpHello* hello : expired) {
    continue_hello(*hello);  // answers, refuses or parks it — or finds it incomplete
    if (holds(hello)) drop(*hello);
  }
  // Rings handed over for hellos that never came.
  std::lock_guard<std::mutex> lock(listeners_mutex_);
  for (auto& listener : listeners_) {
    if (listener->handover != nullptr) listener->handover->expire(now, hello_timeout_);
  }
}

void TcpContext::process(TcpChannelEntry& channel) {
  channel.transport->process(channel.engine);
  channel.engine.flush();
  settle_pending(channel);
}

void TcpContext::settle_pending(TcpChannelEntry& channel) noexcept {
  if (channel.engine.authenticating() && !channel.engine.closed()) return;
  channel.pending.release();
}

void TcpContext::forget(TcpChannelEntry* channel) {
  channel->pending.release();
  rings_.remove(channel);
  if (channel->transport) channel->transport->disconnect();
  if (channel->fd >= 0) ::close(channel->fd);
  channels_.remove(channel).reset();  // the transport closes its socket, which leaves the epoll set
}

}  // namespace jrdma::tcp
