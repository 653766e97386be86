// Where an active channel connects, kept in the channel from connect() (any thread) until the loop
// starts the attempt: the command that carries it to the loop is then only "connect this channel",
// which can be deferred in the channel when the command queue cannot grow (context/command_queue.h).
#pragma once

#include <sys/socket.h>

namespace jrdma {

struct ConnectTarget {
  sockaddr_storage remote{};
  sockaddr_storage local{};
  bool has_local = false;
  int timeout_ms = 0;
};

}  // namespace jrdma
