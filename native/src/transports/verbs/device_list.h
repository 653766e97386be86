// RAII owner of ibv_get_device_list().
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>

namespace jrdma::verbs {

class DeviceList {
 public:
  // Throws RdmaError when libibverbs cannot enumerate devices. No device is not an error.
  DeviceList();
  ~DeviceList();
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;

  std::size_t size() const noexcept { return count_; }
  ibv_device* operator[](std::size_t i) const noexcept { return devices_[i]; }

 private:
  ibv_device** devices_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace jrdma::verbs
