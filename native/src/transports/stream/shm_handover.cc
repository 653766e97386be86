#include "transports/stream/shm_handover.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

#include "base/error.h"
#include "crypto/crypto.h"

namespace jrdma::tcp {

namespace {

constexpr int kMaxDescriptors = 4;  // more than one in a message is refused; room to see them and close them

// "\0jrdma-rings-<port>": an abstract name, so no file and nothing left behind by a crash.
socklen_t abstract_address(uint16_t port, sockaddr_un* address) {
  std::memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  std::string name = "jrdma-rings-" + std::to_string(port);
  std::memcpy(address->sun_path + 1, name.data(), name.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

// Whether the process at the other end of `fd` runs as our user: only such a process may hand us
// memory, or take ours.
bool same_user(int fd) {
  ucred peer{};
  socklen_t length = sizeof peer;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0 && peer.uid == ::geteuid();
}

}  // namespace

ShmHandover::ShmHandover(uint16_t port, std::size_t max_waiting) : max_waiting_(max_waiting) {
  fd_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw_errno("socket(AF_UNIX) for shared-memory handovers", errno);
  sockaddr_un address;
  socklen_t length = abstract_address(port, &address);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(fd_, static_cast<int>(max_waiting_)) != 0) {
    int error = errno;
    ::close(fd_);
    throw_errno("listening for shared-memory handovers of port " + std::to_string(port), error);
  }
}

ShmHandover::~ShmHandover() {
  for (const Arrived& a : arrived_) ::close(a.fd);
  for (const Unread& u : unread_) ::close(u.fd);
  ::close(fd_);
}

int ShmHandover::claim(const uint8_t* ticket) {
  collect();
  for (auto it = arrived_.begin(); it != arrived_.end(); ++it) {
    if (crypto::equal_in_constant_time(it->ticket, ticket, kTicketSize)) {
      int fd = it->fd;
      arrived_.erase(it);
      return fd;
    }
  }
  return -1;
}

void ShmHandover::expire(std::chrono::steady_clock::time_point now, std::chrono::milliseconds timeout) {
  collect();
  auto old = [&](auto& entry) {
    if (now - entry.at <= timeout) return false;
    ::close(entry.fd);
    return true;
  };
  arrived_.erase(std::remove_if(arrived_.begin(), arrived_.end(), old), arrived_.end());
  unread_.erase(std::remove_if(unread_.begin(), unread_.end(), old), unread_.end());
}

// Takes in what came since the last look: messages of connections accepted before, then new ones
// while there is room (beyond it they wait in the backlog, and then a client's offer fails: that
// client stays on TCP).
void ShmHandover::collect() {
  unread_.erase(std::remove_if(unread_.begin(), unread_.end(),
                               [this](const Unread& u) {
                                 if (!read_message(u.fd)) return false;
                                 ::close(u.fd);
                                 return true;
                               }),
                unread_.end());
  while (waiting() < max_waiting_) {
    int connection = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (connection < 0) return;  // EAGAIN: nothing more (or the client gave up)
    if (!same_user(connection)) {
      ::close(connection);
      continue;
    }
    if (read_message(connection)) {
      ::close(connection);
    } else {
      unread_.push_back(Unread{connection, std::chrono::steady_clock::now()});
    }
  }
}

bool ShmHandover::read_message(int connection) {
  Arrived arrived{};
  iovec data{arrived.ticket, kTicketSize};
  alignas(cmsghdr) uint8_t control[CMSG_SPACE(sizeof(int) * kMaxDescriptors)];
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t n = ::recvmsg(connection, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
  std::vector<int> received;
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); n >= 0 && c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      received.push_back(fd);
    }
  }
  bool whole = n == static_cast<ssize_t>(kTicketSize) && (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) == 0;
  if (whole && received.size() == 1 && arrived_.size() < max_waiting_) {
    arrived.fd = received[0];
    arrived.at = std::chrono::steady_clock::now();
    arrived_.push_back(arrived);
    return true;
  }
  for (int fd : received) ::close(fd);  // not what a client of ours sends
  return true;
}

bool ShmHandover::offer(uint16_t port, const uint8_t* ticket, int fd) {
  int s = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  sockaddr_un address;
  socklen_t length = abstract_address(port, &address);
  bool sent = false;
  if (::connect(s, reinterpret_cast<sockaddr*>(&address), length) == 0) {
    if (!same_user(s)) {
      errno = EACCES;
    } else {
      iovec data{const_cast<uint8_t*>(ticket), kTicketSize};
      alignas(cmsghdr) uint8_t control[CMSG_SPACE(sizeof(int))] = {};
      msghdr message{};
      message.msg_iov = &data;
      message.msg_iovlen = 1;
      message.msg_control = control;
      message.msg_controllen = sizeof control;
      cmsghdr* c = CMSG_FIRSTHDR(&message);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
      sent = ::sendmsg(s, &message, MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(kTicketSize);
    }
  }
  int error = errno;
  ::close(s);
  errno = error;
  return sent;
}

}  // namespace jrdma::tcp
