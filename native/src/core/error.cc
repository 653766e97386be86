#include "core/error.h"

#include <cerrno>
#include <cstring>

namespace jrdma {

std::string errno_name(int errno_value) {
  // strerrorname_np needs glibc 2.32; Debian 12 has 2.36.
  const char* name = strerrorname_np(errno_value);
  if (name != nullptr) return name;
  return "errno " + std::to_string(errno_value);
}

void throw_errno(const std::string& call, int errno_value) {
  std::string message = call + " failed: " + errno_name(errno_value) + " (" + std::strerror(errno_value) + ")";
  throw RdmaError(ErrorKind::kNative, std::move(message), errno_value);
}

}  // namespace jrdma
