#include "transport/verbs_channel.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "wire/message_header.h"

namespace jrdma {

VerbsChannel::VerbsChannel(uint32_t key, const QueuePairOptions& options, ibv_pd* pd, verbs::CompletionQueue& cq,
                           ChannelMemory memory, LoopCommands& loop)
    : key_(key),
      options_(options),
      pd_(pd),
      cq_(cq),
      memory_(memory),
      memory_mr_(pd, memory.base, memory.size, IBV_ACCESS_LOCAL_WRITE),
      loop_(loop),
      chain_wrs_(options.depth),
      chain_sges_(2 * static_cast<std::size_t>(options.depth)) {}

VerbsChannel::~VerbsChannel() {
  destroy_queue_pair();
  if (id_ != nullptr) rdma_destroy_id(id_);
}

namespace {
const char* attribute_variable(QueuePairAttribute attribute) {
  switch (attribute) {
    case QueuePairAttribute::kServiceLevel: return "RDMA_SL";
    case QueuePairAttribute::kTrafficClass: return "RDMA_TRAFFIC_CLASS";
    case QueuePairAttribute::kPathMtu: return "RDMA_MTU";
    case QueuePairAttribute::kGidIndex: return "RDMA_GID_INDEX";
    case QueuePairAttribute::kPkeyIndex: return "RDMA_PKEY";
  }
  return "attribute";
}
}  // namespace

AttributeRefused::AttributeRefused(QueuePairAttribute refused, uint32_t configured_value, uint32_t kept_value)
    : RdmaError(ErrorKind::kConfiguration,
                std::string("the device does not keep ") + attribute_variable(refused) + "=" +
                    std::to_string(configured_value) + " on the queue pair (it reads back " +
                    std::to_string(kept_value) + ")",
                EOPNOTSUPP),
      attribute(refused),
      configured(configured_value),
      kept(kept_value) {}

int mtu_enum(uint32_t bytes) noexcept {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: return 0;
  }
}

uint32_t mtu_bytes(int mtu) noexcept { return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0; }

void VerbsChannel::destroy_queue_pair() noexcept {
  if (qp_ != nullptr) {
    ibv_destroy_qp(qp_);
    cq_.unreserve(2 * static_cast<int>(options_.depth));
  }
  qp_ = nullptr;
}

void VerbsChannel::attach(rdma_cm_id* id) { id_ = id; }

void VerbsChannel::detach() noexcept {
  destroy_queue_pair();
  id_ = nullptr;
}

void VerbsChannel::create_queue_pair() {
  if (options_.port != 0 && id_->port_num != options_.port) {
    throw RdmaError(ErrorKind::kConfiguration, "the connection runs over port " + std::to_string(id_->port_num) +
                                                   " of the device, the context uses port " +
                                                   std::to_string(options_.port) + " (RDMA_DEVICE_PORT)",
                    EXDEV);
  }
  cq_.reserve(2 * static_cast<int>(options_.depth));
  ibv_qp_init_attr attr{};
  attr.send_cq = cq_.get();
  attr.recv_cq = cq_.get();
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
    errno = 0;
    qp_ = ibv_create_qp(pd_, &attr);
    if (qp_ != nullptr) break;
    int err = errno != 0 ? errno : ENOMEM;
    if (err == EINVAL && max_inline > 0) continue;
    cq_.unreserve(2 * static_cast<int>(options_.depth));
    throw_errno("ibv_create_qp(depth=" + std::to_string(options_.depth) + ", max_inline=" + std::to_string(max_inline) +
                    ")",
                err);
  }
  max_inline_ = attr.cap.max_inline_data;
  ibv_qp_attr init{};
  int mask = 0;
  init.qp_state = IBV_QPS_INIT;
  if (rdma_init_qp_attr(id_, &init, &mask) != 0) throw_errno("rdma_init_qp_attr(INIT)", errno);
  init.pkey_index = options_.pkey_index;
  mask |= IBV_QP_PKEY_INDEX;
  modify(init, mask, "INIT");
}

void VerbsChannel::modify(ibv_qp_attr& attr, int mask, const char* state) {
  if (int rc = ibv_modify_qp(qp_, &attr, mask); rc != 0) {
    std::string what = std::string("ibv_modify_qp(") + state;
    if (std::string(state) == "INIT") what += ", pkey_index=" + std::to_string(options_.pkey_index);
    if (std::string(state) == "RTR") {
      what += ", path_mtu=" + std::to_string(mtu_bytes(attr.path_mtu)) + ", sgid_index=" +
              std::to_string(attr.ah_attr.grh.sgid_index) + ", sl=" + std::to_string(attr.ah_attr.sl) +
              ", traffic_class=" + std::to_string(attr.ah_attr.grh.traffic_class);
    }
    throw_errno(what + ")", rc);
  }
}

void VerbsChannel::ready(uint32_t peer_mtu) {
  ibv_qp_attr rtr{};
  int mask = 0;
  rtr.qp_state = IBV_QPS_RTR;
  if (rdma_init_qp_attr(id_, &rtr, &mask) != 0) throw_errno("rdma_init_qp_attr(RTR)", errno);
  // Both ends take the smallest MTU either allows (the handshake carries each side's), so a packet
  // is never larger than what the other end's queue pair accepts.
  uint32_t mtu = mtu_bytes(rtr.path_mtu);
  if (options_.mtu != 0 && options_.mtu < mtu) mtu = options_.mtu;
  if (peer_mtu != 0 && peer_mtu < mtu) mtu = peer_mtu;
  rtr.path_mtu = static_cast<ibv_mtu>(mtu_enum(mtu));
  rtr.ah_attr.sl = options_.service_level;
  if (rtr.ah_attr.is_global != 0) {
    rtr.ah_attr.grh.traffic_class = options_.traffic_class;
    if (options_.gid_index >= 0) rtr.ah_attr.grh.sgid_index = static_cast<uint8_t>(options_.gid_index);
  } else if (options_.traffic_class != 0 || options_.gid_index >= 0) {
    // An InfiniBand path within the subnet has no GRH: there is nothing to carry them.
    throw RdmaError(ErrorKind::kConfiguration,
                    "RDMA_TRAFFIC_CLASS and RDMA_GID_INDEX need a global route (GRH); this path has none", EINVAL);
  }
  modify(rtr, mask | IBV_QP_PATH_MTU | IBV_QP_AV, "RTR");
  verify_kept(rtr);
  ibv_qp_attr rts{};
  mask = 0;
  rts.qp_state = IBV_QPS_RTS;
  if (rdma_init_qp_attr(id_, &rts, &mask) != 0) throw_errno("rdma_init_qp_attr(RTS)", errno);
  rts.timeout = options_.timeout;
  rts.retry_cnt = options_.retry_count;
  rts.rnr_retry = options_.rnr_retry;
  modify(rts, mask | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY, "RTS");
}

// Reads the queue pair back: a device that accepts an attribute but does not keep it (rxe has no
// service level) would otherwise drop the configuration silently.
void VerbsChannel::verify_kept(const ibv_qp_attr& wanted) const {
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  if (int rc = ibv_query_qp(qp_, &attr, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_PKEY_INDEX, &init); rc != 0) {
    throw_errno("ibv_query_qp()", rc);
  }
  auto check = [](QueuePairAttribute what, uint32_t configured, uint32_t kept) {
    if (configured != kept) throw AttributeRefused(what, configured, kept);
  };
  check(QueuePairAttribute::kPathMtu, mtu_bytes(wanted.path_mtu), mtu_bytes(attr.path_mtu));
  check(QueuePairAttribute::kServiceLevel, wanted.ah_attr.sl, attr.ah_attr.sl);
  check(QueuePairAttribute::kPkeyIndex, options_.pkey_index, attr.pkey_index);
  if (wanted.ah_attr.is_global != 0) {
    check(QueuePairAttribute::kTrafficClass, wanted.ah_attr.grh.traffic_class, attr.ah_attr.grh.traffic_class);
    check(QueuePairAttribute::kGidIndex, wanted.ah_attr.grh.sgid_index, attr.ah_attr.grh.sgid_index);
  }
}

std::string VerbsChannel::describe_queue_pair() const {
  if (qp_ == nullptr) return "no queue pair";
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |
             IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_CAP;
  if (int rc = ibv_query_qp(qp_, &attr, mask, &init); rc != 0) return "ibv_query_qp failed: " + errno_name(rc);
  return "qp " + std::to_string(qp_->qp_num) + " port=" + std::to_string(attr.port_num) +
         " path_mtu=" + std::to_string(mtu_bytes(attr.path_mtu)) + " sgid_index=" +
         std::to_string(attr.ah_attr.grh.sgid_index) + " traffic_class=" + std::to_string(attr.ah_attr.grh.traffic_class) +
         " sl=" + std::to_string(attr.ah_attr.sl) + " pkey_index=" + std::to_string(attr.pkey_index) +
         " timeout=" + std::to_string(attr.timeout) + " retry_cnt=" + std::to_string(attr.retry_cnt) +
         " rnr_retry=" + std::to_string(attr.rnr_retry) + " max_inline=" + std::to_string(max_inline_);
}

void VerbsChannel::post_receives(const uint32_t* slots, int count) {
  if (qp_ == nullptr) throw RdmaError(ErrorKind::kIllegalState, "no queue pair to post receives on");
  constexpr int kBatch = 32;
  ibv_recv_wr wrs[kBatch];
  ibv_sge sges[kBatch];
  for (int done = 0; done < count;) {
    int n = count - done < kBatch ? count - done : kBatch;
    for (int i = 0; i < n; ++i) {
      uint32_t slot = slots[done + i];
      sges[i].addr = reinterpret_cast<uintptr_t>(memory_.base) + static_cast<uint64_t>(slot) * options_.eager;
      sges[i].length = options_.eager;
      sges[i].lkey = memory_mr_.lkey();
      wrs[i].wr_id = make_wr_id(key_, true, slot);
      wrs[i].sg_list = &sges[i];
      wrs[i].num_sge = 1;
      wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
    }
    ibv_recv_wr* bad = nullptr;
    if (int rc = ibv_post_recv(qp_, wrs, &bad); rc != 0) throw_errno("ibv_post_recv()", rc);
    done += n;
  }
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
      sge[1] = sge[0];
      sge[0] = ibv_sge{reinterpret_cast<uintptr_t>(request.header), static_cast<uint32_t>(wire::kHeaderSize),
                       memory_mr_.lkey()};
      wr.num_sge = request.length > 0 ? 2 : 1;
      wr.opcode = IBV_WR_SEND;
      // Small messages travel inline: the HCA reads no memory later, one DMA less.
      if (wire::kHeaderSize + request.length <= max_inline_) wr.send_flags |= IBV_SEND_INLINE;
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
      break;
  }
  throw RdmaError(ErrorKind::kIllegalArgument, std::string("cannot post ") + op_verb(request.kind));
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
    std::fprintf(stderr, "jrdma post: key %u qp %u:%s\n", key_, qp_->qp_num, slots.c_str());
  }
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(qp_, chain_wrs_.data(), &bad); rc != 0) {
    long failed = bad != nullptr ? bad - chain_wrs_.data() : 0;
    throw_errno("ibv_post_send(" + std::string(op_verb(requests[failed].kind)) + ", request " +
                    std::to_string(failed + 1) + " of " + std::to_string(count) + ")",
                rc);
  }
}

void VerbsChannel::disconnect() noexcept {
  if (loop_.in_loop_thread()) {
    disconnect_now();
  } else {
    loop_.disconnect_later(key_);
  }
}

void VerbsChannel::disconnect_now() noexcept {
  if (disconnected_.exchange(true)) return;
  if (id_ != nullptr) rdma_disconnect(id_);  // fails harmlessly (EINVAL) when not connected yet
  if (qp_ != nullptr) {
    // rdma_cm moves only the queue pairs it owns to the error state: ours flushes its work here.
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_ERR;
    ibv_modify_qp(qp_, &attr, IBV_QP_STATE);
  }
}

}  // namespace jrdma
