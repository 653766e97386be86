#include "transports/verbs/queue_pair.h"

#include <cerrno>

#include "base/error.h"

namespace jrdma::verbs {

QueuePair::QueuePair(ibv_pd* pd, ibv_qp_init_attr& attr, const std::string& what) {
  errno = 0;
  qp_ = ibv_create_qp(pd, &attr);
  if (qp_ == nullptr) throw_errno("ibv_create_qp(" + what + ")", errno != 0 ? errno : ENOMEM);
}

QueuePair::~QueuePair() {
  if (qp_ != nullptr) ibv_destroy_qp(qp_);
}

void QueuePair::modify(ibv_qp_attr& attr, int mask, const std::string& what) {
  if (int rc = ibv_modify_qp(qp_, &attr, mask); rc != 0) throw_errno("ibv_modify_qp(" + what + ")", rc);
}

int QueuePair::query(ibv_qp_attr& attr, int mask) const noexcept {
  ibv_qp_init_attr init{};
  return ibv_query_qp(qp_, &attr, mask, &init);
}

void QueuePair::to_error() noexcept {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_ERR;
  ibv_modify_qp(qp_, &attr, IBV_QP_STATE);
}

}  // namespace jrdma::verbs
