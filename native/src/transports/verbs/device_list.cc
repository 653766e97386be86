#include "transports/verbs/device_list.h"

#include <cerrno>

#include "base/error.h"

namespace jrdma::verbs {

DeviceList::DeviceList() {
  int num = 0;
  errno = 0;
  devices_ = ibv_get_device_list(&num);
  if (devices_ == nullptr) {
    // ENOSYS means the kernel has no uverbs support (no /sys/class/infiniband_verbs): on such a
    // host there is simply no device, which is an empty list rather than an error.
    if (errno == ENOSYS) return;
    throw_errno("ibv_get_device_list()", errno != 0 ? errno : ENODEV);
  }
  count_ = num < 0 ? 0 : static_cast<std::size_t>(num);
}

DeviceList::~DeviceList() {
  if (devices_ != nullptr) ibv_free_device_list(devices_);
}

}  // namespace jrdma::verbs
