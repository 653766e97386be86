// RAII owner of a protection domain.
#pragma once

#include <infiniband/verbs.h>

namespace jrdma::verbs {

class ProtectionDomain {
 public:
  explicit ProtectionDomain(ibv_context* context);
  ~ProtectionDomain();
  ProtectionDomain(const ProtectionDomain&) = delete;
  ProtectionDomain& operator=(const ProtectionDomain&) = delete;

  ibv_pd* get() const noexcept { return pd_; }
  // Deallocates now; returns 0 or the errno (EBUSY while memory regions or QPs remain).
  int release() noexcept;

 private:
  ibv_pd* pd_ = nullptr;
};

}  // namespace jrdma::verbs
