// A peer that speaks the TCP transport's set-up and frames by hand (raw sockets), for the
// hostile-peer tests: what a peer may send is not limited to what jrdma's client would.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "test/transport/tcp_loop.h"
#include "transports/stream/tcp_frame.h"

namespace jrdma::test {

// The server's reject as a raw client reads it from `fd`; reason kNone when the answer was not a reject.
struct Reject {
  wire::RejectReason reason = wire::RejectReason::kNone;
  uint32_t detail = 0;
};

inline Reject read_reject(int fd) {
  uint8_t answer[1 + wire::kRejectSize];
  Reject reject;
  if (::recv(fd, answer, sizeof answer, MSG_WAITALL) == static_cast<ssize_t>(sizeof answer) &&
      answer[0] == tcp::kAnswerRejected) {
    wire::decode_reject(answer + 1, wire::kRejectSize, &reject.reason, &reject.detail);
  }
  return reject;
}

// A peer that speaks the TCP transport by hand.
class RawPeer {
 public:
  explicit RawPeer(uint16_t port) : port_(port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_storage to = loopback(port);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof(sockaddr_in)) == 0;
  }
  ~RawPeer() { ::close(fd_); }

  // Sends a hello as jrdma's client does; `ticket` (kShmTicketSize bytes) offers rings.
  // `eager` must be the server's (a different one is refused).
  void hello(bool authenticate, const uint8_t* ticket = nullptr, uint32_t eager = options().eager) {
    wire::Handshake ours;
    ours.credits = 16;
    ours.eager = eager;
    ours.max_message = 1u << 20;
    ours.rendezvous = 8;
    if (authenticate) ours.flags |= wire::kFlagAuthenticate;
    if (ticket != nullptr) ours.flags |= wire::kFlagSharedMemory;
    std::vector<uint8_t> bytes(wire::kHandshakeSize + 1);
    wire::encode_handshake(ours, bytes.data());
    bytes[wire::kHandshakeSize] = 0;  // no connect data
    if (ticket != nullptr) bytes.insert(bytes.end(), ticket, ticket + wire::kShmTicketSize);
    send(bytes.data(), bytes.size());
  }

  // The server's answer: accepted (first byte 0), its handshake, and the nonce when authenticating.
  bool accepted(bool authenticate, wire::Handshake* server) {
    std::vector<uint8_t> answer(1 + (authenticate ? wire::kAcceptWithNonceSize : wire::kHandshakeSize));
    if (::recv(fd_, answer.data(), answer.size(), MSG_WAITALL) != static_cast<ssize_t>(answer.size())) return false;
    return answer[0] == tcp::kAnswerAccepted &&
           wire::decode_handshake(answer.data() + 1, wire::kHandshakeSize, server) == wire::RejectReason::kNone;
  }

  wire::RejectReason rejected() { return read_reject(fd_).reason; }

  void frame(const tcp::Frame& f, const uint8_t* payload = nullptr) {
    uint8_t header[tcp::kFrameHeaderSize];
    tcp::encode_frame(f, header);
    send(header, sizeof header);
    if (payload != nullptr) send(payload, f.length);
  }

  // Whether the server ends the connection within 10 s; bytes it sent first are kept in `received`.
  bool closed_by_server() {
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10000) != 1) return false;
      uint8_t bytes[4096];
      ssize_t n = ::recv(fd_, bytes, sizeof bytes, 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
      if (n < 0) return false;
      received.insert(received.end(), bytes, bytes + n);
    }
  }

  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  uint16_t port() const { return port_; }
  std::vector<uint8_t> received;

 private:
  void send(const uint8_t* bytes, std::size_t length) {
    ASSERT_EQ(static_cast<ssize_t>(length), ::send(fd_, bytes, length, MSG_NOSIGNAL));
  }
  uint16_t port_;
  int fd_;
  bool connected_ = false;
};

}  // namespace jrdma::test
