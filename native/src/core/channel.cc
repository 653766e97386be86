#include "core/channel.h"

#include <arpa/inet.h>

#include <cerrno>
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
  attr.cap.max_send_wr = options_.depth;
  attr.cap.max_recv_wr = options_.depth;
  attr.cap.max_send_sge = 2;
  attr.cap.max_recv_sge = 1;
  attr.cap.max_inline_data = options_.max_inline;
  attr.sq_sig_all = 0;
  if (rdma_create_qp(id_, context_.pd(), &attr) != 0) {
    int err = errno;
    context_.release_cq_entries(2 * static_cast<int>(options_.depth));
    throw_errno("rdma_create_qp(depth=" + std::to_string(options_.depth) + ")", err);
  }
  qp_created_ = true;
  max_inline_ = attr.cap.max_inline_data;
  headers_.assign(static_cast<std::size_t>(options_.depth) * wire::kHeaderSize, 0);
  headers_mr_ = context_.register_memory(headers_.data(), headers_.size(), IBV_ACCESS_LOCAL_WRITE);
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

void Channel::post(ibv_send_wr* wr, const char* what) {
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(id_->qp, wr, &bad); rc != 0) throw_errno(what, rc);
}

void Channel::post_send(uint32_t slot, wire::MessageType type, uint16_t credits, uint64_t message_id,
                        uint64_t address, uint32_t length, uint32_t lkey) {
  if (slot >= options_.depth) throw RdmaError(ErrorKind::kIllegalArgument, "send slot out of range");
  if (length > peer_.eager - wire::kHeaderSize) {
    throw RdmaError(ErrorKind::kIllegalArgument, "message of " + std::to_string(length) +
                                                     " bytes exceeds the peer's eager size");
  }
  uint8_t* header = headers_.data() + static_cast<std::size_t>(slot) * wire::kHeaderSize;
  wire::MessageHeader h;
  h.type = type;
  h.credits = credits;
  h.length = length;
  h.id = message_id;
  wire::encode_header(h, header);
  ibv_sge sge[2];
  sge[0].addr = reinterpret_cast<uintptr_t>(header);
  sge[0].length = static_cast<uint32_t>(wire::kHeaderSize);
  sge[0].lkey = headers_mr_->lkey();
  sge[1].addr = address;
  sge[1].length = length;
  sge[1].lkey = lkey;
  ibv_send_wr wr{};
  wr.wr_id = make_wr_id(key_, false, slot);
  wr.sg_list = sge;
  wr.num_sge = length > 0 ? 2 : 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  // Small messages travel inline: the HCA reads no memory later, one DMA less.
  if (wire::kHeaderSize + length <= max_inline_) wr.send_flags |= IBV_SEND_INLINE;
  post(&wr, "ibv_post_send(SEND)");
}

void Channel::post_write(uint32_t slot, uint64_t address, uint32_t length, uint32_t lkey, uint64_t remote_address,
                         uint32_t rkey, bool with_immediate, uint32_t immediate) {
  ibv_sge sge{address, length, lkey};
  ibv_send_wr wr{};
  wr.wr_id = make_wr_id(key_, false, slot);
  wr.sg_list = &sge;
  wr.num_sge = length > 0 ? 1 : 0;
  wr.opcode = with_immediate ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  if (length <= max_inline_ && length > 0) wr.send_flags |= IBV_SEND_INLINE;
  wr.imm_data = htonl(immediate);
  wr.wr.rdma.remote_addr = remote_address;
  wr.wr.rdma.rkey = rkey;
  post(&wr, with_immediate ? "ibv_post_send(RDMA_WRITE_WITH_IMM)" : "ibv_post_send(RDMA_WRITE)");
}

void Channel::post_read(uint32_t slot, uint64_t address, uint32_t length, uint32_t lkey, uint64_t remote_address,
                        uint32_t rkey) {
  ibv_sge sge{address, length, lkey};
  ibv_send_wr wr{};
  wr.wr_id = make_wr_id(key_, false, slot);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_READ;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = remote_address;
  wr.wr.rdma.rkey = rkey;
  post(&wr, "ibv_post_send(RDMA_READ)");
}

void Channel::post_atomic(uint32_t slot, bool compare_and_swap, uint64_t address, uint32_t lkey,
                          uint64_t remote_address, uint32_t rkey, uint64_t compare_or_add, uint64_t swap) {
  ibv_sge sge{address, 8, lkey};
  ibv_send_wr wr{};
  wr.wr_id = make_wr_id(key_, false, slot);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = compare_and_swap ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.atomic.remote_addr = remote_address;
  wr.wr.atomic.rkey = rkey;
  wr.wr.atomic.compare_add = compare_or_add;
  wr.wr.atomic.swap = swap;
  post(&wr, compare_and_swap ? "ibv_post_send(ATOMIC_CMP_AND_SWP)" : "ibv_post_send(ATOMIC_FETCH_AND_ADD)");
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
