// How a client hands its sealed ring file (shm_pipe.h) to a server on the same host: over a
// Unix-domain socket in the abstract namespace named after the server's TCP port, with SCM_RIGHTS,
// together with a random ticket that the client's TCP hello repeats. The server takes the file only
// from a process of its own user (SO_PEERCRED) and only for a hello that names its ticket; it
// answers the hello with the shared-memory flag only then, which tells the client that the TCP peer
// and the receiver of the file are one process. A server on another host (or network namespace)
// has no such socket here: the client's offer finds nobody, and the channel stays on TCP.
//
// The descriptor arrives before the hello that claims it (the client sends it first); whoever
// connects may leave things here, so what waits is bounded and expires with the hello timeout.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire/handshake.h"

namespace jrdma::tcp {

class ShmHandover {
 public:
  static constexpr std::size_t kTicketSize = wire::kShmTicketSize;

  // Server: listens for `port`'s handovers, holding at most `max_waiting` descriptors and
  // connections not yet claimed (the listener's bound on pending connections: each of those may have
  // handed over its rings; a burst of that many connects must not find the backlog full). Throws
  // RdmaError with the errno (EADDRINUSE: another listener of this host took the name; the TCP
  // listener then offers no shared memory).
  ShmHandover(uint16_t port, std::size_t max_waiting);
  ~ShmHandover();
  ShmHandover(const ShmHandover&) = delete;
  ShmHandover& operator=(const ShmHandover&) = delete;

  // The descriptor handed over with `ticket` (now the caller's), or -1 when none came.
  int claim(const uint8_t* ticket);
  // Closes what waited longer than `timeout`.
  void expire(std::chrono::steady_clock::time_point now, std::chrono::milliseconds timeout);
  std::size_t waiting() const noexcept { return arrived_.size() + unread_.size(); }
  std::size_t max_waiting() const noexcept { return max_waiting_; }

  // Client: hands `fd` with `ticket` to the server of `port` on this host, if one of this user
  // listens. False (errno set) when there is none or it cannot take it now.
  static bool offer(uint16_t port, const uint8_t* ticket, int fd);

 private:
  struct Arrived {
    uint8_t ticket[kTicketSize];
    int fd;
    std::chrono::steady_clock::time_point at;
  };
  struct Unread {  // accepted, its message not in yet
    int fd;
    std::chrono::steady_clock::time_point at;
  };
  void collect();
  // Reads one connection's message: true when it is done with (taken or refused), false to retry.
  bool read_message(int connection);

  int fd_;
  const std::size_t max_waiting_;
  std::vector<Arrived> arrived_;
  std::vector<Unread> unread_;
};

}  // namespace jrdma::tcp
