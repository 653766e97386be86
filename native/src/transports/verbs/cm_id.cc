#include "transports/verbs/cm_id.h"

#include <cerrno>

#include "base/error.h"

namespace jrdma::verbs {

CmId::CmId(rdma_event_channel* channel, void* context) {
  if (rdma_create_id(channel, &id_, context, RDMA_PS_TCP) != 0) {
    id_ = nullptr;
    throw_errno("rdma_create_id()", errno);
  }
}

CmId& CmId::operator=(CmId&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.id_;
    other.id_ = nullptr;
  }
  return *this;
}

void CmId::reset() noexcept {
  if (id_ != nullptr) rdma_destroy_id(id_);
  id_ = nullptr;
}

void CmId::bind(const sockaddr* address) {
  if (rdma_bind_addr(id_, const_cast<sockaddr*>(address)) != 0) throw_errno("rdma_bind_addr()", errno);
}

void CmId::listen(int backlog) {
  if (rdma_listen(id_, backlog) != 0) throw_errno("rdma_listen(backlog=" + std::to_string(backlog) + ")", errno);
}

void CmId::set_option(int name, const void* value, std::size_t length, const std::string& what) {
  if (rdma_set_option(id_, RDMA_OPTION_ID, name, const_cast<void*>(value), length) != 0) {
    throw_errno("rdma_set_option(" + what + ")", errno);
  }
}

void CmId::reject(const void* data, uint8_t length) noexcept { rdma_reject(id_, data, length); }

}  // namespace jrdma::verbs
