// RAII owner of an opened verbs device (ibv_open_device / ibv_close_device).
#pragma once

#include <infiniband/verbs.h>

namespace jrdma::verbs {

class DeviceContext {
 public:
  explicit DeviceContext(ibv_device* device);
  ~DeviceContext();
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  ibv_context* get() const noexcept { return context_; }

 private:
  ibv_context* context_ = nullptr;
};

}  // namespace jrdma::verbs
