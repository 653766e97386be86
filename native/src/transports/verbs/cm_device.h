// The ibv_context librdmacm opened for a device (owned by librdmacm; rdma_free_devices releases
// the list). Opening by name here keeps the PD/CQ usable with the rdma_cm ids of that device.
#pragma once

#include <rdma/rdma_cma.h>

#include <string>

namespace jrdma::verbs {

class RdmaCmDevice {
 public:
  // Throws RdmaError (kConfiguration) when no device has that name.
  explicit RdmaCmDevice(const std::string& name);
  ~RdmaCmDevice();
  RdmaCmDevice(const RdmaCmDevice&) = delete;
  RdmaCmDevice& operator=(const RdmaCmDevice&) = delete;
  ibv_context* get() const noexcept { return context_; }

 private:
  ibv_context** list_ = nullptr;
  ibv_context* context_ = nullptr;
};

}  // namespace jrdma::verbs
