#include "transports/verbs/memory_region.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/error.h"

namespace jrdma::verbs {

const char* access_text(int access) noexcept {
  static const char* const kNames[16] = {"NONE",
                                         "LOCAL_WRITE",
                                         "REMOTE_WRITE",
                                         "LOCAL_WRITE|REMOTE_WRITE",
                                         "REMOTE_READ",
                                         "LOCAL_WRITE|REMOTE_READ",
                                         "REMOTE_WRITE|REMOTE_READ",
                                         "LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ",
                                         "REMOTE_ATOMIC",
                                         "LOCAL_WRITE|REMOTE_ATOMIC",
                                         "REMOTE_WRITE|REMOTE_ATOMIC",
                                         "LOCAL_WRITE|REMOTE_WRITE|REMOTE_ATOMIC",
                                         "REMOTE_READ|REMOTE_ATOMIC",
                                         "LOCAL_WRITE|REMOTE_READ|REMOTE_ATOMIC",
                                         "REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC",
                                         "LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC"};
  return (access >= 0 && access < 16) ? kNames[access] : "INVALID";
}

namespace {

std::string memlock_hint() {
  rlimit limit{};
  std::string now = "unknown";
  if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0) {
    now = limit.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(limit.rlim_cur / 1024) + " KiB";
  }
  return "; registered memory is locked memory and counts against the memlock limit (ulimit -l), now " + now +
         " for this process: raise it (memlock in /etc/security/limits.conf, LimitMEMLOCK= for systemd,"
         " docker run --ulimit memlock=-1) or grant CAP_IPC_LOCK";
}

}  // namespace

MemoryRegion::MemoryRegion(ibv_pd* pd, void* address, std::size_t length, int access) {
  errno = 0;
  mr_ = ibv_reg_mr(pd, address, length, access);
  if (mr_ == nullptr) {
    int err = errno != 0 ? errno : ENOMEM;
    char call[160];
    std::snprintf(call, sizeof call, "ibv_reg_mr(addr=%p, len=%zu, access=%s)", address, length, access_text(access));
    std::string message = std::string(call) + " failed: " + errno_name(err) + " (" + std::strerror(err) + ")";
    if (err == ENOMEM || err == EPERM) message += memlock_hint();
    throw RdmaError(ErrorKind::kRegistration, std::move(message), err);
  }
}

MemoryRegion::~MemoryRegion() { release(); }

int MemoryRegion::release() noexcept {
  if (mr_ == nullptr) return 0;
  int rc = ibv_dereg_mr(mr_);
  if (rc == 0) mr_ = nullptr;
  return rc;
}

}  // namespace jrdma::verbs
