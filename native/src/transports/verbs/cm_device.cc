#include "transports/verbs/cm_device.h"

#include <cerrno>

#include "base/error.h"

namespace jrdma::verbs {

RdmaCmDevice::RdmaCmDevice(const std::string& name) {
  int count = 0;
  errno = 0;
  list_ = rdma_get_devices(&count);
  if (list_ == nullptr) throw_errno("rdma_get_devices()", errno != 0 ? errno : ENODEV);
  for (int i = 0; i < count; ++i) {
    if (name == ibv_get_device_name(list_[i]->device)) context_ = list_[i];
  }
  if (context_ == nullptr) {
    rdma_free_devices(list_);
    throw RdmaError(ErrorKind::kConfiguration, "RDMA_DEVICE=" + name + " does not exist (any more)");
  }
}

RdmaCmDevice::~RdmaCmDevice() { rdma_free_devices(list_); }

}  // namespace jrdma::verbs
