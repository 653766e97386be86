#include "protocol/send_window.h"

#include <string>

namespace jrdma {

SendWindow::SendWindow(uint32_t depth, uint32_t signal_interval)
    : depth_(depth),
      signal_interval_(signal_interval == 0 ? 1 : signal_interval),
      ops_(depth),
      in_use_(depth, false),
      free_(depth),
      free_count_(depth),
      order_(depth) {
  for (uint32_t i = 0; i < depth; ++i) free_[i] = depth - 1 - i;
}

uint32_t SendWindow::take(const PostedOp& op) noexcept {
  uint32_t slot = free_[--free_count_];
  ops_[slot] = op;
  in_use_[slot] = true;
  order_[(order_head_ + order_size_++) % depth_] = slot;
  return slot;
}

bool SendWindow::signal_next(bool last_of_chain) noexcept {
  if (++unsignaled_ >= signal_interval_ || last_of_chain) {
    unsignaled_ = 0;
    return true;
  }
  return false;
}

void SendWindow::clear() noexcept {
  for (uint32_t i = 0; i < depth_; ++i) {
    in_use_[i] = false;
    free_[i] = depth_ - 1 - i;
  }
  free_count_ = depth_;
  order_head_ = order_size_ = 0;
}

std::string SendWindow::describe() const {
  std::string text;
  for (uint32_t i = 0; i < order_size_; ++i) {
    uint32_t slot = order_[(order_head_ + i) % depth_];
    text += (i == 0 ? "" : " ") + std::to_string(slot) + ":" + op_verb(ops_[slot].kind);
  }
  return text;
}

const char* op_verb(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::kSend:
      return "SEND";
    case OpKind::kCredit:
      return "SEND(credit)";
    case OpKind::kWrite:
      return "RDMA_WRITE";
    case OpKind::kWriteWithImmediate:
      return "RDMA_WRITE_WITH_IMM";
    case OpKind::kRead:
      return "RDMA_READ";
    case OpKind::kCompareAndSwap:
      return "ATOMIC_CMP_AND_SWP";
    case OpKind::kFetchAndAdd:
      return "ATOMIC_FETCH_AND_ADD";
    case OpKind::kReleaseReceive:
      return "RELEASE_RECEIVE";
    case OpKind::kReceive:
      return "RECEIVE";
    case OpKind::kTransferBuffer:
      return "TRANSFER_BUFFER";
    case OpKind::kControl:
      return "SEND(rendezvous)";
    case OpKind::kTransferRead:
      return "RDMA_READ(rendezvous)";
    case OpKind::kAllocateRemote:
      return "SEND(allocate)";
    case OpKind::kReleaseRemote:
      return "SEND(release)";
    case OpKind::kSendToken:
      return "SEND(token)";
    case OpKind::kAgentAnswer:
      return "AGENT_ANSWER";
  }
  return "unknown";
}

}  // namespace jrdma
