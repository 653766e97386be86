// RAII owner of a registered memory region.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>

namespace jrdma::verbs {

class MemoryRegion {
 public:
  // Throws RdmaError of kind kRegistration; ENOMEM/EPERM name the locked-memory limit.
  MemoryRegion(ibv_pd* pd, void* address, std::size_t length, int access);
  ~MemoryRegion();
  MemoryRegion(const MemoryRegion&) = delete;
  MemoryRegion& operator=(const MemoryRegion&) = delete;

  uint32_t lkey() const noexcept { return mr_->lkey; }
  uint32_t rkey() const noexcept { return mr_->rkey; }
  uint64_t address() const noexcept { return reinterpret_cast<uintptr_t>(mr_->addr); }
  std::size_t length() const noexcept { return mr_->length; }
  int release() noexcept;

 private:
  ibv_mr* mr_ = nullptr;
};

// "LOCAL_WRITE|REMOTE_READ" for an access mask.
const char* access_text(int access) noexcept;

}  // namespace jrdma::verbs
