// Socket addresses as the records and Java show them: "ip port" (IPv4 or IPv6). One definition for
// the verbs context (rdma_cm's addresses), the TCP context and the JNI layer.
#pragma once

#include <sys/socket.h>

#include <string>

namespace jrdma {

// "ip port", or "" for an address that is neither IPv4 nor IPv6.
std::string address_text(const sockaddr* address);
// The address of a socket's own end (local) or of its peer, as address_text; "" when it has none.
std::string socket_end_text(int fd, bool local);

}  // namespace jrdma
