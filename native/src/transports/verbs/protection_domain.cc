#include "transports/verbs/protection_domain.h"

#include <cerrno>

#include "base/error.h"

namespace jrdma::verbs {

ProtectionDomain::ProtectionDomain(ibv_context* context) {
  errno = 0;
  pd_ = ibv_alloc_pd(context);
  if (pd_ == nullptr) throw_errno("ibv_alloc_pd()", errno != 0 ? errno : ENOMEM);
}

ProtectionDomain::~ProtectionDomain() { release(); }

int ProtectionDomain::release() noexcept {
  if (pd_ == nullptr) return 0;
  int rc = ibv_dealloc_pd(pd_);
  if (rc == 0) pd_ = nullptr;
  return rc;
}

}  // namespace jrdma::verbs
