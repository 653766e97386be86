#include "base/socket_address.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstdlib>

#include "base/error.h"

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

namespace {

// The scope after '%': an interface index ("2") or name ("eth0"); 0 for none.
uint32_t scope_id(const std::string& scope, const std::string& text) {
  if (scope.empty()) return 0;
  char* end = nullptr;
  errno = 0;
  unsigned long index = std::strtoul(scope.c_str(), &end, 10);
  if (*end == '\0' && errno == 0 && index <= UINT32_MAX) return static_cast<uint32_t>(index);
  unsigned named = if_nametoindex(scope.c_str());
  if (named == 0)
    throw RdmaError(ErrorKind::kIllegalArgument, "no interface '" + scope + "' for the scope of " + text, errno);
  return named;
}

}  // namespace

sockaddr_storage parse_socket_address(const std::string& text, int port) {
  if (port < 0 || port > 65535)
    throw RdmaError(ErrorKind::kIllegalArgument, "port out of range: " + std::to_string(port));
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  std::string::size_type percent = text.find('%');
  std::string ip = text.substr(0, percent);
  if (percent == std::string::npos && inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
  } else if (inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    v6->sin6_scope_id = percent == std::string::npos ? 0 : scope_id(text.substr(percent + 1), text);
  } else {
    throw RdmaError(ErrorKind::kIllegalArgument, "not an IP address: " + text);
  }
  return storage;
}

}  // namespace jrdma
