#include "core/channel.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/context.h"
#include "core/error.h"

namespace jrdma {

Channel::Channel(Context& context, const ChannelOptions& options, bool passive)
    : context_(context), options_(options), passive_(passive) {}

Channel::~Channel() {
  detach_queue_pair();
  headers_mr_.reset();
  if (id_ != nullptr) rdma_destroy_id(id_);
}

void Channel::detach_queue_pair() noexcept {
  if (qp_created_ && id_ != nullptr) {
    rdma_destroy_qp(id_);
    context_.release_cq_entries(2 * static_cast<int>(options_.depth));
  }
  qp_created_ = false;
}

void Channel::detach() noexcept {
  detach_queue_pair();
  if (id_ != nullptr) id_->context = nullptr;
  id_ = nullptr;
}

void Channel::attach(rdma_cm_id* id, uint32_t key) {
  id_ = id;
  key_ = key;
  id->context = this;
}

wire::Handshake Channel::local_handshake() const {
  wire::Handshake h;
  h.credits = options_.depth;
  h.eager = options_.eager;
  h.max_message = options_.eager - static_cast<uint32_t>(wire::kHeaderSize);
  return h;
}

void Channel::create_queue_pair() {
  if (id_->verbs != context_.device()) {
    throw RdmaError(ErrorKind::kIllegalArgument, std::string("the address belongs to device ") +
                                                      ibv_get_device_name(id_->verbs->device) + ", the context is on " +
                                                      ibv_get_device_name(context_.device()->device));
  }
  context_.reserve_cq_entries(2 * static_cast<int>(options_.depth));
  ibv_qp_init_attr attr{};
  attr.send_cq = context_.cq();
  attr.recv_cq = context_.cq();
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 0;
  // Inline data is an optimization whose limit differs per device (rxe 512 bytes, others less): a
  // request above it fails with EINVAL, so ask for less until the device accepts (0 always works).
  for (uint32_t max_inline = options_.max_inline;; max_inline /= 2) {
    attr.cap.max_send_wr = options_.depth;  // (the provider may have changed the caps of a failed attempt)
    attr.cap.max_recv_wr = options_.depth;
    attr.cap.max_send_sge = 2;
    attr.cap.max_recv_sge = 1;
    attr.cap.max_inline_data = max_inline;
    if (rdma_create_qp(id_, context_.pd(), &attr) == 0) break;
    int err = errno;
    if (err == EINVAL && max_inline > 0) continue;
    context_.release_cq_entries(2 * static_cast<int>(options_.depth));
    throw_errno("rdma_create_qp(depth=" + std::to_string(options_.depth) + ", max_inline=" + std::to_string(max_inline) +
                    ")",
                err);
  }
  qp_created_ = true;
  max_inline_ = attr.cap.max_inline_data;
  headers_.assign(static_cast<std::size_t>(options_.depth) * wire::kHeaderSize, 0);
  headers_mr_ = context_.register_memory(headers_.data(), headers_.size(), IBV_ACCESS_LOCAL_WRITE);
  batch_wrs_.assign(options_.depth, ibv_send_wr{});
  batch_sges_.assign(2 * static_cast<std::size_t>(options_.depth), ibv_sge{});
}

void Channel::set_receive_buffers(uint64_t address, uint32_t lkey, uint32_t slots) {
  receive_address_ = address;
  receive_lkey_ = lkey;
  receive_slots_ = slots;
  std::vector<int32_t> all(slots);
  for (uint32_t i = 0; i < slots; ++i) all[i] = static_cast<int32_t>(i);
  repost_receives(all.data(), static_cast<int>(slots));
}

void Channel::repost_receives(const int32_t* slots, int count) {
  constexpr int kBatch = 32;
  ibv_recv_wr wrs[kBatch];
  ibv_sge sges[kBatch];
  for (int done = 0; done < count;) {
    int n = count - done < kBatch ? count - done : kBatch;
    for (int i = 0; i < n; ++i) {
      int32_t slot = slots[done + i];
      if (slot < 0 || static_cast<uint32_t>(slot) >= receive_slots_) {
        throw RdmaError(ErrorKind::kIllegalArgument, "receive slot " + std::to_string(slot) + " out of range");
      }
      sges[i].addr = receive_address_ + static_cast<uint64_t>(slot) * options_.eager;
      sges[i].length = options_.eager;
      sges[i].lkey = receive_lkey_;
      wrs[i].wr_id = make_wr_id(key_, true, static_cast<uint32_t>(slot));
      wrs[i].sg_list = &sges[i];
      wrs[i].num_sge = 1;
      wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
    }
    ibv_recv_wr* bad = nullptr;
    if (int rc = ibv_post_recv(id_->qp, wrs, &bad); rc != 0) throw_errno("ibv_post_recv()", rc);
    done += n;
  }
}

namespace {

const char* verb_name(uint8_t kind) {
  switch (static_cast<WorkRequestKind>(kind)) {
    case WorkRequestKind::kSend: return "SEND";
    case WorkRequestKind::kCredit: return "SEND(credit)";
    case WorkRequestKind::kWrite: return "RDMA_WRITE";
    case WorkRequestKind::kWriteWithImmediate: return "RDMA_WRITE_WITH_IMM";
    case WorkRequestKind::kRead: return "RDMA_READ";
    case WorkRequestKind::kCompareAndSwap: return "ATOMIC_CMP_AND_SWP";
    case WorkRequestKind::kFetchAndAdd: return "ATOMIC_FETCH_AND_ADD";
  }
  return "unknown";
}

}  // namespace

void Channel::build(const WorkRequestDescriptor& request, ibv_send_wr& wr, ibv_sge* sge) {
  if (request.slot >= options_.depth) {
    throw RdmaError(ErrorKind::kIllegalArgument, "work request slot " + std::to_string(request.slot) + " out of range");
  }
  wr = ibv_send_wr{};
  wr.wr_id = make_wr_id(key_, false, request.slot);
  wr.sg_list = sge;
  wr.send_flags = (request.flags & kWorkRequestSignaled) != 0 ? IBV_SEND_SIGNALED : 0;
  sge[0] = ibv_sge{request.local_address, request.length, request.lkey};
  switch (static_cast<WorkRequestKind>(request.kind)) {
    case WorkRequestKind::kSend:
    case WorkRequestKind::kCredit: {
      bool data = request.kind == static_cast<uint8_t>(WorkRequestKind::kSend);
      uint32_t length = data ? request.length : 0;
      if (length > peer_.eager - wire::kHeaderSize) {
        throw RdmaError(ErrorKind::kIllegalArgument,
                        "message of " + std::to_string(length) + " bytes exceeds the peer's eager size");
      }
      uint8_t* header = headers_.data() + static_cast<std::size_t>(request.slot) * wire::kHeaderSize;
      wire::MessageHeader h;
      h.type = data ? wire::MessageType::kData : wire::MessageType::kCredit;
      h.credits = request.credits;
      h.length = length;
      h.id = request.message_id;
      wire::encode_header(h, header);
      sge[1] = sge[0];
      sge[0] = ibv_sge{reinterpret_cast<uintptr_t>(header), static_cast<uint32_t>(wire::kHeaderSize), headers_mr_->lkey()};
      wr.num_sge = length > 0 ? 2 : 1;
      wr.opcode = IBV_WR_SEND;
      // Small messages travel inline: the HCA reads no memory later, one DMA less.
      if (wire::kHeaderSize + length <= max_inline_) wr.send_flags |= IBV_SEND_INLINE;
      return;
    }
    case WorkRequestKind::kWrite:
    case WorkRequestKind::kWriteWithImmediate:
      wr.num_sge = request.length > 0 ? 1 : 0;
      wr.opcode = request.kind == static_cast<uint8_t>(WorkRequestKind::kWrite) ? IBV_WR_RDMA_WRITE
                                                                                 : IBV_WR_RDMA_WRITE_WITH_IMM;
      if (request.length <= max_inline_ && request.length > 0) wr.send_flags |= IBV_SEND_INLINE;
      wr.imm_data = htonl(request.immediate);
      wr.wr.rdma.remote_addr = request.remote_address;
      wr.wr.rdma.rkey = request.rkey;
      return;
    case WorkRequestKind::kRead:
      if (request.length == 0) throw RdmaError(ErrorKind::kIllegalArgument, "an RDMA READ needs at least one byte");
      wr.num_sge = 1;
      wr.opcode = IBV_WR_RDMA_READ;
      wr.wr.rdma.remote_addr = request.remote_address;
      wr.wr.rdma.rkey = request.rkey;
      return;
    case WorkRequestKind::kCompareAndSwap:
    case WorkRequestKind::kFetchAndAdd:
      sge[0].length = 8;
      wr.num_sge = 1;
      wr.opcode = request.kind == static_cast<uint8_t>(WorkRequestKind::kCompareAndSwap) ? IBV_WR_ATOMIC_CMP_AND_SWP
                                                                                         : IBV_WR_ATOMIC_FETCH_AND_ADD;
      wr.wr.atomic.remote_addr = request.remote_address;
      wr.wr.atomic.rkey = request.rkey;
      wr.wr.atomic.compare_add = request.compare_add;
      wr.wr.atomic.swap = request.swap;
      return;
  }
  throw RdmaError(ErrorKind::kIllegalArgument, "unknown work request kind " + std::to_string(request.kind));
}

void Channel::post_batch(const WorkRequestDescriptor* requests, int count) {
  if (count <= 0) return;
  if (static_cast<std::size_t>(count) > batch_wrs_.size()) {
    throw RdmaError(ErrorKind::kIllegalArgument, std::to_string(count) + " work requests exceed the queue depth " +
                                                     std::to_string(batch_wrs_.size()));
  }
  for (int i = 0; i < count; ++i) {
    build(requests[i], batch_wrs_[static_cast<std::size_t>(i)], &batch_sges_[2 * static_cast<std::size_t>(i)]);
    batch_wrs_[static_cast<std::size_t>(i)].next = i + 1 < count ? &batch_wrs_[static_cast<std::size_t>(i) + 1] : nullptr;
  }
  // JRDMA_TRACE_CQ=1 also prints every posted chain (diagnostics; docs/testing.md).
  static const bool trace = std::getenv("JRDMA_TRACE_CQ") != nullptr;
  if (trace) {
    std::string slots;
    for (int i = 0; i < count; ++i) {
      slots += " " + std::to_string(requests[i].slot) + verb_name(requests[i].kind) +
               ((requests[i].flags & kWorkRequestSignaled) != 0 ? "*" : "");
    }
    std::fprintf(stderr, "jrdma post: key %u qp %u:%s\n", key_, id_->qp->qp_num, slots.c_str());
  }
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(id_->qp, batch_wrs_.data(), &bad); rc != 0) {
    long failed = bad != nullptr ? bad - batch_wrs_.data() : 0;
    throw_errno("ibv_post_send(" + std::string(verb_name(requests[failed].kind)) + ", request " +
                    std::to_string(failed + 1) + " of " + std::to_string(count) + ")",
                rc);
  }
}

// The single-request forms fill one descriptor (field order as in work_request.h) and post it.
void Channel::post_send(uint32_t slot, wire::MessageType type, uint16_t credits, uint64_t message_id,
                        uint64_t address, uint32_t length, uint32_t lkey) {
  auto kind = type == wire::MessageType::kData ? WorkRequestKind::kSend : WorkRequestKind::kCredit;
  WorkRequestDescriptor d{static_cast<uint8_t>(kind), kWorkRequestSignaled, credits, slot, address, length, lkey,
                          0, 0, 0, message_id, 0, 0};
  post_batch(&d, 1);
}

void Channel::post_write(uint32_t slot, uint64_t address, uint32_t length, uint32_t lkey, uint64_t remote_address,
                         uint32_t rkey, bool with_immediate, uint32_t immediate) {
  auto kind = with_immediate ? WorkRequestKind::kWriteWithImmediate : WorkRequestKind::kWrite;
  WorkRequestDescriptor d{static_cast<uint8_t>(kind), kWorkRequestSignaled, 0, slot, address, length, lkey,
                          remote_address, rkey, immediate, 0, 0, 0};
  post_batch(&d, 1);
}

void Channel::post_read(uint32_t slot, uint64_t address, uint32_t length, uint32_t lkey, uint64_t remote_address,
                        uint32_t rkey) {
  WorkRequestDescriptor d{static_cast<uint8_t>(WorkRequestKind::kRead), kWorkRequestSignaled, 0, slot, address, length,
                          lkey, remote_address, rkey, 0, 0, 0, 0};
  post_batch(&d, 1);
}

wire::DecodeStatus Channel::decode(uint32_t slot, uint32_t byte_len, wire::MessageHeader* header) const {
  if (slot >= receive_slots_) return wire::DecodeStatus::kTooShort;
  const auto* data = reinterpret_cast<const uint8_t*>(receive_address_ + static_cast<uint64_t>(slot) * options_.eager);
  // The peer can return at most as many credits as it announced (our sends it may have taken).
  return wire::decode_header(data, byte_len, options_.eager, peer_.credits, header);
}

void Channel::disconnect() noexcept {
  if (disconnected_ || id_ == nullptr) return;
  disconnected_ = true;
  rdma_disconnect(id_);  // fails harmlessly (EINVAL) when not connected yet
}

}  // namespace jrdma
