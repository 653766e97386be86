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
// An IPv4 or IPv6 address as Java's getHostAddress writes it ("10.0.0.1", "::1", "fe80::1%eth0" or
// "fe80::1%2": a scope by interface name or index) with a port; RdmaError (illegal argument) naming
// the text when it is none of these, the scope's interface does not exist or the port is out of range.
sockaddr_storage parse_socket_address(const std::string& ip, int port);

}  // namespace jrdma
