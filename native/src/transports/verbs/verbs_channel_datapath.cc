// The verbs transport's hot path: the engine's work requests become one ibv_post_send chain (header
// slot + payload as two SGEs, inline when small), receive slots one ibv_post_recv per 32. No
// allocation: the chain's scratch arrays are sized to the queue depth once.
#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/error.h"
#include "transports/verbs/verbs_channel.h"
#include "wire/message_header.h"

namespace jrdma {

void VerbsChannel::post_receives(const uint32_t* slots, int count) {
  if (shared_ != nullptr) {
    std::lock_guard<std::mutex> lock(posted_mutex_);
    posted_.post(slots, count);
    return;
  }
  if (qp_ == nullptr) throw RdmaError(ErrorKind::kIllegalState, "no queue pair to post receives on");
  constexpr int kBatch = 32;
  ibv_recv_wr wrs[kBatch];
  ibv_sge sges[kBatch];
  for (int done = 0; done < count;) {
    int n = count - done < kBatch ? count - done : kBatch;
    for (int i = 0; i < n; ++i) {
      uint32_t slot = slots[done + i];
      sges[i].addr = reinterpret_cast<uintptr_t>(memory_.base) + static_cast<uint64_t>(slot) * eager_;
      sges[i].length = eager_;
      sges[i].lkey = memory_lkey_;
      wrs[i].wr_id = make_wr_id(key_, true, slot);
      wrs[i].sg_list = &sges[i];
      wrs[i].num_sge = 1;
      wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
    }
    ibv_recv_wr* bad = nullptr;
    if (int rc = ibv_post_recv(qp_->get(), wrs, &bad); rc != 0) throw_errno("ibv_post_recv()", rc);
    done += n;
  }
}

bool VerbsChannel::take_posted(uint32_t* slot) noexcept {
  std::lock_guard<std::mutex> lock(posted_mutex_);
  return posted_.take_last(slot);
}

void VerbsChannel::build(const WorkRequest& request, ibv_send_wr& wr, ibv_sge* sge) const {
  wr = ibv_send_wr{};
  wr.wr_id = make_wr_id(key_, false, request.slot);
  wr.sg_list = sge;
  wr.send_flags = request.signaled ? IBV_SEND_SIGNALED : 0;
  sge[0] = ibv_sge{request.local_address, request.length, request.lkey};
  switch (request.kind) {
    case OpKind::kSend:
    case OpKind::kCredit:
    case OpKind::kControl:
      sge[1] = sge[0];
      sge[0] = ibv_sge{reinterpret_cast<uintptr_t>(request.header), request.header_length, memory_lkey_};
      wr.num_sge = request.length > 0 ? 2 : 1;
      wr.opcode = IBV_WR_SEND;
      // Small messages travel inline: the HCA reads no memory later, one DMA less.
      if (request.header_length + request.length <= max_inline_) wr.send_flags |= IBV_SEND_INLINE;
      return;
    case OpKind::kWrite:
    case OpKind::kWriteWithImmediate:
      wr.num_sge = request.length > 0 ? 1 : 0;
      wr.opcode = request.kind == OpKind::kWrite ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_WRITE_WITH_IMM;
      if (request.length <= max_inline_ && request.length > 0) wr.send_flags |= IBV_SEND_INLINE;
      wr.imm_data = htonl(request.immediate);
      wr.wr.rdma.remote_addr = request.remote_address;
      wr.wr.rdma.rkey = request.rkey;
      return;
    case OpKind::kRead:
    case OpKind::kTransferRead:
      wr.num_sge = 1;
      wr.opcode = IBV_WR_RDMA_READ;
      wr.wr.rdma.remote_addr = request.remote_address;
      wr.wr.rdma.rkey = request.rkey;
      return;
    case OpKind::kCompareAndSwap:
    case OpKind::kFetchAndAdd:
      wr.num_sge = 1;
      wr.opcode = request.kind == OpKind::kCompareAndSwap ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD;
      wr.wr.atomic.remote_addr = request.remote_address;
      wr.wr.atomic.rkey = request.rkey;
      wr.wr.atomic.compare_add = request.compare_add;
      wr.wr.atomic.swap = request.swap;
      return;
    case OpKind::kReleaseReceive:
    case OpKind::kReceive:
    case OpKind::kTransferBuffer:
    case OpKind::kAllocateRemote:  // agent messages reach the transport as kControl
    case OpKind::kReleaseRemote:
    case OpKind::kSendToken:
    case OpKind::kAgentAnswer:
      break;
  }
  throw RdmaError(ErrorKind::kIllegalArgument, std::string("cannot post ") + op_verb(request.kind));
}

// Exactly the bytes of one transfer, remote read only, in the context's protection domain (the
// queue pair's). Deregistered by revoke() when the peer answers or the channel ends.
ChannelTransport::Exposure VerbsChannel::expose_for_read(uint64_t address, uint64_t length) {
  ibv_mr* mr = ibv_reg_mr(pd_, reinterpret_cast<void*>(address), length, IBV_ACCESS_REMOTE_READ);
  if (mr == nullptr) throw_errno("ibv_reg_mr(" + std::to_string(length) + " bytes, remote read)", errno);
  std::lock_guard<std::mutex> lock(exposures_mutex_);
  exposures_.push_back(mr);
  return Exposure{reinterpret_cast<uintptr_t>(mr), mr->rkey};
}

void VerbsChannel::revoke(uint64_t handle) noexcept {
  auto* mr = reinterpret_cast<ibv_mr*>(handle);
  {
    std::lock_guard<std::mutex> lock(exposures_mutex_);
    auto it = std::find(exposures_.begin(), exposures_.end(), mr);
    if (it == exposures_.end()) return;
    exposures_.erase(it);
  }
  if (int rc = ibv_dereg_mr(mr); rc != 0)
    std::fprintf(stderr, "jrdma: ibv_dereg_mr of a transfer source: errno %d\n", rc);
}

void VerbsChannel::post_chain(const WorkRequest* requests, int count) {
  if (count <= 0) return;
  if (qp_ == nullptr) throw RdmaError(ErrorKind::kIllegalState, "no queue pair to post on");
  if (static_cast<std::size_t>(count) > chain_wrs_.size()) {
    throw RdmaError(ErrorKind::kIllegalArgument, std::to_string(count) + " work requests exceed the queue depth " +
                                                     std::to_string(chain_wrs_.size()));
  }
  for (int i = 0; i < count; ++i) {
    auto at = static_cast<std::size_t>(i);
    build(requests[i], chain_wrs_[at], &chain_sges_[2 * at]);
    chain_wrs_[at].next = i + 1 < count ? &chain_wrs_[at + 1] : nullptr;
  }
  // JRDMA_TRACE_CQ=1 also prints every posted chain (diagnostics; docs/testing.md).
  static const bool trace = std::getenv("JRDMA_TRACE_CQ") != nullptr;
  if (trace) {
    std::string slots;
    for (int i = 0; i < count; ++i) {
      slots += " " + std::to_string(requests[i].slot) + op_verb(requests[i].kind) + (requests[i].signaled ? "*" : "");
    }
    std::fprintf(stderr, "jrdma post: %s key %u qp %u:%s\n", ibv_get_device_name(qp_->get()->context->device), key_,
                 qp_->number(), slots.c_str());
  }
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(qp_->get(), chain_wrs_.data(), &bad); rc != 0) {
    long failed = bad != nullptr ? bad - chain_wrs_.data() : 0;
    throw_errno("ibv_post_send(" + std::string(op_verb(requests[failed].kind)) + ", request " +
                    std::to_string(failed + 1) + " of " + std::to_string(count) + ")",
                rc);
  }
}

}  // namespace jrdma
