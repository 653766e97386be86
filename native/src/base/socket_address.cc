#include "base/socket_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace jrdma {

std::string address_text(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = {};
  uint16_t port = 0;
  const void* raw = nullptr;
  if (address->sa_family == AF_INET) {
    raw = &reinterpret_cast<const sockaddr_in*>(address)->sin_addr;
    port = ntohs(reinterpret_cast<const sockaddr_in*>(address)->sin_port);
  } else if (address->sa_family == AF_INET6) {
    raw = &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
    port = ntohs(reinterpret_cast<const sockaddr_in6*>(address)->sin6_port);
  }
  if (raw == nullptr || inet_ntop(address->sa_family, raw, text, sizeof text) == nullptr) return std::string();
  return std::string(text) + " " + std::to_string(port);
}

std::string socket_end_text(int fd, bool local) {
  sockaddr_storage end{};
  socklen_t length = sizeof end;
  auto* at = reinterpret_cast<sockaddr*>(&end);
  if (fd < 0 || (local ? ::getsockname(fd, at, &length) : ::getpeername(fd, at, &length)) != 0) return std::string();
  return address_text(at);
}

}  // namespace jrdma
