#include "transports/verbs/device_context.h"

#include <cerrno>
#include <string>

#include "base/error.h"

namespace jrdma::verbs {

DeviceContext::DeviceContext(ibv_device* device) {
  errno = 0;
  context_ = ibv_open_device(device);
  if (context_ == nullptr) {
    throw_errno(std::string("ibv_open_device(") + ibv_get_device_name(device) + ")", errno != 0 ? errno : ENODEV);
  }
}

DeviceContext::~DeviceContext() {
  if (context_ != nullptr) ibv_close_device(context_);
}

}  // namespace jrdma::verbs
