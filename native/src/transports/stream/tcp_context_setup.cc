// TcpContext's connection set-up (loop thread): connects, accepted sockets before their hello
// (TcpHello), the hello and answer exchange, refusals. See tcp_context.h.
#include <netinet/in.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "crypto/crypto.h"
#include "transports/stream/tcp_context.h"

namespace jrdma::tcp {

// ---- connections (loop thread) ----------------------------------------------------------------

void TcpContext::start_connect(TcpChannelEntry& channel) {
  if (channel.engine.closed()) return;  // closed before the attempt started
  const ConnectTarget& c = channel.connect_target;
  channel.fd = ::socket(c.remote.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (channel.fd < 0) return connect_failed(channel, ChannelFailure::kSetupError, errno);
  socklen_t length = c.remote.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (c.has_local && ::bind(channel.fd, reinterpret_cast<const sockaddr*>(&c.local),
                            c.local.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in)) != 0) {
    return connect_failed(channel, ChannelFailure::kAddressError, errno);
  }
  if (::connect(channel.fd, reinterpret_cast<const sockaddr*>(&c.remote), length) != 0 && errno != EINPROGRESS) {
    int error = errno;
    return connect_failed(channel, error == ECONNREFUSED ? ChannelFailure::kRefused : ChannelFailure::kAddressError,
                          error);
  }
  channel.remote_port = ntohs(reinterpret_cast<const sockaddr_in*>(&c.remote)->sin_port);  // same offset for IPv6
  channel.setup = TcpChannelEntry::Setup::kConnecting;
  channel.deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(c.timeout_ms > 0 ? c.timeout_ms : 30000);
  try {
    watch(channel.fd, &channel);
  } catch (const RdmaError& e) {
    connect_failed(channel, ChannelFailure::kSetupError, e.errno_value());
  }
}

void TcpContext::accept_all(TcpListener& listener) {
  for (;;) {
    int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or the peer gave up already
    uint32_t bound_met = 0;
    PendingPlace place = pending_.take(listener.pending, &bound_met);
    if (!place.held()) {
      // Over a bound (the listener's or the context's): told at once, and nothing is kept for it.
      send_reject(fd, wire::RejectReason::kTooManyPending, bound_met);
      ::close(fd);
      emit(make_record(EventKind::kIncomingRejected, 0, static_cast<int32_t>(wire::RejectReason::kTooManyPending), 0, 0,
                       handle_of(&listener)));
      continue;
    }
    auto hello = std::make_unique<TcpHello>();
    hello->fd = fd;
    hello->listener = &listener;
    hello->deadline = std::chrono::steady_clock::now() + hello_timeout_;
    hello->place = std::move(place);
    TcpHello* raw = hello.get();
    hellos_.push_back(std::move(hello));
    try {
      watch(fd, raw);
    } catch (const RdmaError&) {
      drop(*raw);
      continue;
    }
    continue_hello(*raw);
  }
}

// The hello is answered, refused or timed out: its socket (unless a channel took it) and its place
// go, and it is freed (a parked one by its request, which owns it).
void TcpContext::drop(TcpHello& hello) noexcept {
  if (hello.fd >= 0) ::close(hello.fd);  // leaves the epoll set
  hello.fd = -1;
  hello.place.release();
  take_hello(hello).reset();
}

bool TcpContext::holds(const TcpHello* hello) const noexcept {
  for (const auto& held : hellos_) {
    if (held.get() == hello) return true;
  }
  return false;
}

std::unique_ptr<TcpHello> TcpContext::take_hello(TcpHello& hello) noexcept {
  for (auto it = hellos_.begin(); it != hellos_.end(); ++it) {
    if (it->get() == &hello) {
      std::unique_ptr<TcpHello> taken = std::move(*it);
      hellos_.erase(it);
      return taken;
    }
  }
  return nullptr;
}

void TcpContext::on_channel_event(TcpChannelEntry& channel) {
  switch (channel.setup) {
    case TcpChannelEntry::Setup::kConnecting:
    case TcpChannelEntry::Setup::kAwaitingAnswer:
      return continue_connect(channel);
    case TcpChannelEntry::Setup::kOpen:
      return process(channel);
    case TcpChannelEntry::Setup::kCreated:
      return;
  }
}

// Reads set-up bytes until `want` are in; false while more are to come (or the socket failed:
// then the channel is failed or forgotten already).
bool TcpContext::read_setup(TcpChannelEntry& channel, std::size_t want) {
  while (channel.setup_received < want) {
    ssize_t n = ::recv(channel.fd, channel.setup_bytes + channel.setup_received, want - channel.setup_received, 0);
    if (n > 0) {
      channel.setup_received += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    if (n < 0 && errno == EINTR) continue;
    connect_failed(channel, ChannelFailure::kConnectError, n == 0 ? ECONNRESET : errno);
    return false;
  }
  return true;
}

// Client: connected, then the hello out, then the server's answer in.
void TcpContext::continue_connect(TcpChannelEntry& channel) {
  if (channel.engine.closed()) return;
  if (channel.setup == TcpChannelEntry::Setup::kConnecting) {
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(channel.fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error == EINPROGRESS || error == EALREADY) return;
    if (error != 0) {
      return connect_failed(channel, error == ECONNREFUSED ? ChannelFailure::kRefused : ChannelFailure::kUnreachable,
                            error);
    }
    uint8_t hello[sizeof TcpHello::bytes] = {};
    wire::Handshake ours = handshake_of(channel.engine);
    uint8_t ticket[wire::kShmTicketSize];
    if (shared_memory_ != SharedMemory::kOff) {
      // Rings for a peer on this host, handed to the server's handover socket before the hello
      // that names their ticket (shm_handover.h). A server that answers with the flag took them.
      try {
        channel.offered = ShmPipe::create();
      } catch (const RdmaError& e) {
        if (shared_memory_ == SharedMemory::kRequired)
          return connect_failed(channel, ChannelFailure::kSetupError, e.errno_value());
      }
      if (channel.offered != nullptr && crypto::random_bytes(ticket, sizeof ticket) &&
          ShmHandover::offer(channel.remote_port, ticket, channel.offered->fd())) {
        channel.offered->handed_over();
        ours.flags |= wire::kFlagSharedMemory;
      } else {
        channel.offered.reset();  // no server of ours on this host has that port
        if (shared_memory_ == SharedMemory::kRequired) {
          return connect_failed(channel, ChannelFailure::kRejected, 0, wire::RejectReason::kNoSharedMemory);
        }
      }
    }
    wire::encode_handshake(ours, hello);
    wire::encode_connect_data(channel.connect_data.data(), channel.connect_data.size(), hello + wire::kHandshakeSize);
    auto hello_length = static_cast<ssize_t>(wire::kHandshakeSize + 1 + channel.connect_data.size());
    if (channel.offered != nullptr) {
      std::memcpy(hello + hello_length, ticket, sizeof ticket);
      hello_length += static_cast<ssize_t>(sizeof ticket);
    }
    // At most 88 bytes into an empty socket: all of them or a broken connection.
    if (::send(channel.fd, hello, static_cast<std::size_t>(hello_length), MSG_NOSIGNAL) != hello_length) {
      return connect_failed(channel, ChannelFailure::kConnectError, errno);
    }
    channel.setup = TcpChannelEntry::Setup::kAwaitingAnswer;
  }
  if (!read_setup(channel, 1)) return;
  if (channel.setup_bytes[0] == kAnswerRejected) {
    if (!read_setup(channel, 1 + wire::kRejectSize)) return;
    wire::RejectReason reason = wire::RejectReason::kMalformed;
    uint32_t detail = 0;
    wire::decode_reject(channel.setup_bytes + 1, wire::kRejectSize, &reason, &detail);
    if (reason == wire::RejectReason::kAdmissionRefused) {  // the policy's text follows, length first
      if (!read_setup(channel, 1 + wire::kRejectSize + 1)) return;
      std::size_t text = std::min<std::size_t>(channel.setup_bytes[1 + wire::kRejectSize], wire::kMaxRejectText);
      if (!read_setup(channel, 1 + wire::kRejectSize + 1 + text)) return;
      channel.refusal_text = wire::decode_refusal_text(channel.setup_bytes + 1, wire::kRejectSize + 1 + text);
    }
    return connect_failed(channel, ChannelFailure::kRejected, 0, reason, detail);
  }
  if (!read_setup(channel, 1 + wire::kHandshakeSize)) return;
  wire::Handshake peer;
  wire::RejectReason reason = channel.setup_bytes[0] == kAnswerAccepted
                                  ? wire::decode_handshake(channel.setup_bytes + 1, wire::kHandshakeSize, &peer)
                                  : wire::RejectReason::kMalformed;
  if (reason != wire::RejectReason::kNone) return connect_failed(channel, ChannelFailure::kRejected, 0, reason);
  bool authenticate = !channel.engine.options().psk.empty();
  if (authenticate) {
    // Our hello asked for it: a server that accepts without it cannot prove the key.
    if ((peer.flags & wire::kFlagAuthenticate) == 0) {
      return connect_failed(channel, ChannelFailure::kAuthFailed, static_cast<int>(AuthFailure::kNotOffered));
    }
    if (!read_setup(channel, 1 + wire::kAcceptWithNonceSize)) return;  // the server's nonce follows
  }
  // The server took our rings, or not (another host, or it will not share memory).
  bool shared = (peer.flags & wire::kFlagSharedMemory) != 0;
  if (shared && channel.offered == nullptr)
    return connect_failed(channel, ChannelFailure::kRejected, 0, wire::RejectReason::kMalformed);
  if (!shared && shared_memory_ == SharedMemory::kRequired) {
    return connect_failed(channel, ChannelFailure::kRejected, 0, wire::RejectReason::kNoSharedMemory);
  }
  std::unique_ptr<ShmPipe> rings = std::move(channel.offered);
  channel.engine.set_peer(peer);
  start_stream(channel, shared ? std::move(rings) : nullptr);
  if (authenticate) channel.engine.authenticate(true, channel.setup_bytes + 1 + wire::kHandshakeSize);
  channel.engine.open();
  // Frames the server sent right after its answer were read with it, or wait in the socket with
  // no edge left to announce them (edge-triggered epoll): process them now.
  process(channel);
}

// What a side says of itself on the stream: the engine's handshake, with the flag that it holds a
// pre-shared key (as the verbs context puts it into rdma_cm's private data).
wire::Handshake TcpContext::handshake_of(const ChannelEngine& engine) {
  wire::Handshake local = engine.local_handshake();
  if (!engine.options().psk.empty()) local.flags |= wire::kFlagAuthenticate;
  return local;
}

// Server: the client's hello, checked as the verbs server checks the connect request's data; only
// a hello that passes (and, with an admission policy, is accepted) gets a channel and the answer.
void TcpContext::continue_hello(TcpHello& hello) {
  if (hello.awaiting) return;  // parked: the policy decides (an event came before it did)
  // The handshake first: another version, or not ours, is refused before anything else is read.
  if (!read_hello(hello, wire::kHandshakeSize)) return;
  TcpListener& listener = *hello.listener;
  wire::Handshake peer;
  wire::RejectReason reason = wire::decode_handshake(hello.bytes, wire::kHandshakeSize, &peer);
  if (reason == wire::RejectReason::kVersionMismatch)
    return refuse(hello, reason, wire::kProtocolVersion, peer.version);
  if (reason != wire::RejectReason::kNone) return refuse(hello, reason, 0, 0);
  // Then the connect data: its length, and the bytes it announces.
  if (!read_hello(hello, wire::kHandshakeSize + 1)) return;
  std::size_t announced = hello.bytes[wire::kHandshakeSize];
  if (announced > wire::kMaxConnectData) return refuse(hello, wire::RejectReason::kMalformed, 0, 0);
  std::size_t with_data = wire::kHandshakeSize + 1 + announced;
  bool offered = (peer.flags & wire::kFlagSharedMemory) != 0;
  if (!read_hello(hello, with_data + (offered ? wire::kShmTicketSize : 0))) return;
  const EngineOptions& ours = listener.options;
  if (peer.eager != ours.eager) return refuse(hello, wire::RejectReason::kEagerMismatch, ours.eager, peer.eager);
  // Both ends hold a pre-shared key, or neither.
  bool we_authenticate = !ours.psk.empty();
  if (we_authenticate != ((peer.flags & wire::kFlagAuthenticate) != 0)) {
    return refuse(hello, wire::RejectReason::kAuthMismatch, we_authenticate ? 1 : 0, 0);
  }
  if (listener.admission) return park_for_admission(hello, peer);
  admit(hello, peer);
}

// A hello past every check and the admission policy: the client's rings, then the channel. Only
// now is the ring file taken from the handover socket (checked: sealed, sized; mapped only after
// the client's proof, TcpChannel::grant_remote_access), so a refused peer's file is never touched.
void TcpContext::admit(TcpHello& hello, const wire::Handshake& peer) {
  TcpListener& listener = *hello.listener;
  if ((peer.flags & wire::kFlagSharedMemory) != 0 && listener.handover != nullptr && hello.pipe == nullptr) {
    const uint8_t* ticket = hello.bytes + wire::kHandshakeSize + 1 + hello.bytes[wire::kHandshakeSize];
    int fd = listener.handover->claim(ticket);
    int error = 0;
    if (fd >= 0) hello.pipe = ShmPipe::adopt(fd, &error);
  }
  if (shared_memory_ == SharedMemory::kRequired && hello.pipe == nullptr) {
    return refuse(hello, wire::RejectReason::kNoSharedMemory, 0, 0);
  }
  open_from_hello(hello, peer);
}

// Reads hello bytes until `want` are in; false while more are to come, or when the peer left (the
// hello is dropped then: nothing to report).
bool TcpContext::read_hello(TcpHello& hello, std::size_t want) {
  while (hello.received < want) {
    ssize_t n = ::recv(hello.fd, hello.bytes + hello.received, want - hello.received, 0);
    if (n > 0) {
      hello.received += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return false;
    } else {
      drop(hello);
      return false;
    }
  }
  return true;
}

// `peer` is a copy: a parked hello holds the handshake it was decided on, and the hello is dropped
// before the engine learns its peer.
void TcpContext::open_from_hello(TcpHello& hello, wire::Handshake peer) {
  const EngineOptions& ours = hello.listener->options;
  bool we_authenticate = !ours.psk.empty();
  TcpChannelEntry* channel;
  try {
    channel = create_channel(ours);
  } catch (const std::bad_alloc&) {
    return refuse(hello, wire::RejectReason::kResources, ENOMEM, 0);
  } catch (const RdmaError&) {
    return refuse(hello, wire::RejectReason::kResources, ENFILE, 0);  // 65,535 channels live
  }
  // The socket moves from the hello to the channel (same fd: epoll now hands the channel back).
  channel->fd = hello.fd;
  hello.fd = -1;
  try {
    loop_.rewatch(channel->fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, channel);
  } catch (const RdmaError&) {
    // cannot fail for a fd already in the set (EPOLL_CTL_MOD of a watched fd with valid flags)
  }
  TcpListener* from = hello.listener;
  std::unique_ptr<ShmPipe> rings = std::move(hello.pipe);
  // Until its proof checks, the channel keeps the hello's place among the pending connections.
  if (we_authenticate) channel->pending = std::move(hello.place);
  drop(hello);
  channel->engine.set_peer(peer);
  uint8_t answer[1 + wire::kAcceptWithNonceSize];
  answer[0] = kAnswerAccepted;
  wire::Handshake ours_now = handshake_of(channel->engine);
  if (rings != nullptr) ours_now.flags |= wire::kFlagSharedMemory;  // we took the client's rings
  wire::encode_handshake(ours_now, answer + 1);
  std::size_t answer_length = 1 + wire::kHandshakeSize;
  start_stream(*channel, std::move(rings));  // every receive is posted before the client can send a frame
  if (we_authenticate) {
    // A fresh nonce per connection: a proof recorded from another connection does not match.
    uint8_t* nonce = answer + 1 + wire::kHandshakeSize;
    if (!crypto::random_bytes(nonce, wire::kNonceSize)) return forget(channel);
    channel->engine.authenticate(false, nonce);
    answer_length = 1 + wire::kAcceptWithNonceSize;
  }
  if (::send(channel->transport->fd(), answer, answer_length, MSG_NOSIGNAL) != static_cast<ssize_t>(answer_length)) {
    return forget(channel);
  }
  emit(make_record(EventKind::kIncoming, channel->key, 0, 0, handle_of(channel), handle_of(from)));
  channel->engine.open();
  process(*channel);  // frames that came with the hello
}

void TcpContext::start_stream(TcpChannelEntry& channel, std::unique_ptr<ShmPipe> rings) {
  channel.transport =
      std::make_unique<TcpChannel>(channel.fd, channel.memory.data(), channel.engine.options().eager, memory_);
  channel.fd = -1;  // the transport owns it
  if (rings != nullptr) {
    channel.transport->use_shared_memory(std::move(rings));
    rings_.add(&channel);
  }
  channel.transport->set_waker(this, &channel);
  channel.engine.attach(channel.transport.get());
  channel.setup = TcpChannelEntry::Setup::kOpen;
}

void TcpContext::connect_failed(TcpChannelEntry& channel, ChannelFailure failure, int status, wire::RejectReason reason,
                                uint32_t detail) {
  channel.offered.reset();  // rings offered and never taken: unmapped
  if (channel.fd >= 0) {
    ::close(channel.fd);  // leaves the epoll set
    channel.fd = -1;
  }
  channel.setup = TcpChannelEntry::Setup::kCreated;
  channel.engine.abort(ClosedCause::kConnectFailed, static_cast<int32_t>(failure), status,
                       static_cast<int64_t>(static_cast<uint16_t>(reason)) | (static_cast<int64_t>(detail) << 16));
}

void TcpContext::send_reject(int fd, wire::RejectReason reason, uint32_t detail) noexcept {
  uint8_t answer[1 + wire::kRejectSize];
  answer[0] = kAnswerRejected;
  wire::encode_reject(reason, detail, answer + 1);
  if (::send(fd, answer, sizeof answer, MSG_NOSIGNAL) < 0) {
    // the client is gone already: nothing to tell it
  }
}

void TcpContext::refuse(TcpHello& hello, wire::RejectReason reason, uint32_t detail, uint32_t peer_value) {
  send_reject(hello.fd, reason, detail);
  emit(make_record(EventKind::kIncomingRejected, 0, static_cast<int32_t>(reason), static_cast<int32_t>(peer_value), 0,
                   handle_of(hello.listener)));
  drop(hello);
}

}  // namespace jrdma::tcp
