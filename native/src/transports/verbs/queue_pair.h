// RAII owner of a queue pair created with ibv_create_qp (not attached to an rdma_cm id, so its
// state transitions are ours to make). Failures name the call and its arguments.
#pragma once

#include <infiniband/verbs.h>

#include <string>

namespace jrdma::verbs {

class QueuePair {
 public:
  // Throws RdmaError (errno of ibv_create_qp) naming `what` (e.g. the capabilities asked for).
  QueuePair(ibv_pd* pd, ibv_qp_init_attr& attr, const std::string& what);
  ~QueuePair();
  QueuePair(const QueuePair&) = delete;
  QueuePair& operator=(const QueuePair&) = delete;

  ibv_qp* get() const noexcept { return qp_; }
  uint32_t number() const noexcept { return qp_->qp_num; }
  // ibv_modify_qp; throws RdmaError naming `what` (the state and attributes) on failure.
  void modify(ibv_qp_attr& attr, int mask, const std::string& what);
  // ibv_query_qp; returns 0 or the errno.
  int query(ibv_qp_attr& attr, int mask) const noexcept;
  // Moves to the error state: posted work flushes (idempotent; best effort).
  void to_error() noexcept;

 private:
  ibv_qp* qp_ = nullptr;
};

}  // namespace jrdma::verbs
