#include "transports/verbs/verbs_channel.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/error.h"
#include "wire/message_header.h"

namespace jrdma {

VerbsChannel::VerbsChannel(uint32_t key, const QueuePairOptions& options, const EngineOptions& ring, ibv_pd* pd,
                           verbs::CompletionQueues& cqs, verbs::SharedReceiveQueue* shared, ChannelMemory memory,
                           uint32_t memory_lkey, LoopCommands& loop)
    : key_(key),
      options_(options),
      depth_(ring.depth),
      send_slots_(ring.send_window()),
      eager_(ring.eager),
      pd_(pd),
      cqs_(cqs),
      shared_(shared),
      memory_(memory),
      memory_lkey_(memory_lkey),
      loop_(loop),
      chain_wrs_(ring.depth),
      chain_sges_(2 * static_cast<std::size_t>(ring.depth)),
      posted_(shared != nullptr ? ring.depth : 0) {}

// The queue pair goes first, then the cm id (a member).
VerbsChannel::~VerbsChannel() {
  destroy_queue_pair();
  for (ibv_mr* mr : exposures_) ibv_dereg_mr(mr);
}

namespace {
const char* attribute_variable(QueuePairAttribute attribute) {
  switch (attribute) {
    case QueuePairAttribute::kServiceLevel:
      return "RDMA_SL";
    case QueuePairAttribute::kTrafficClass:
      return "RDMA_TRAFFIC_CLASS";
    case QueuePairAttribute::kPathMtu:
      return "RDMA_MTU";
    case QueuePairAttribute::kGidIndex:
      return "RDMA_GID_INDEX";
    case QueuePairAttribute::kPkeyIndex:
      return "RDMA_PKEY";
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
    case 256:
      return IBV_MTU_256;
    case 512:
      return IBV_MTU_512;
    case 1024:
      return IBV_MTU_1024;
    case 2048:
      return IBV_MTU_2048;
    case 4096:
      return IBV_MTU_4096;
    default:
      return 0;
  }
}

uint32_t mtu_bytes(int mtu) noexcept { return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0; }

void VerbsChannel::destroy_queue_pair() noexcept {
  if (qp_ != nullptr) {
    // Completions of this queue pair still waiting in the CQ find no channel from now on (the loop
    // gives their shared buffers back). QP numbers are handed out in turn (rxe, mlx5), so a new
    // queue pair does not take this one's number while its completions could still be polled.
    if (shared_ != nullptr) shared_->detach(qp_->number());
    qp_.reset();
    cq_->unreserve(2 * static_cast<int>(depth_));
    cq_ = nullptr;
  }
}

verbs::CmId VerbsChannel::detach() noexcept {
  destroy_queue_pair();
  return std::move(id_);
}

void VerbsChannel::create_queue_pair() {
  if (options_.port != 0 && id_->port_num != options_.port) {
    throw RdmaError(ErrorKind::kConfiguration,
                    "the connection runs over port " + std::to_string(id_->port_num) +
                        " of the device, the context uses port " + std::to_string(options_.port) +
                        " (RDMA_DEVICE_PORT)",
                    EXDEV);
  }
  verbs::CompletionQueue& cq = cqs_.reserve(2 * static_cast<int>(depth_));
  ibv_qp_init_attr attr{};
  attr.send_cq = cq.get();
  attr.recv_cq = cq.get();
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 0;
  if (shared_ != nullptr) attr.srq = shared_->get();
  // Inline data is an optimization whose limit differs per device (rxe 512 bytes, others less): a
  // request above it fails with EINVAL, so ask for less until the device accepts (0 always works).
  for (uint32_t max_inline = options_.max_inline;; max_inline /= 2) {
    attr.cap.max_send_wr = send_slots_;  // (the provider may have changed the caps of a failed attempt)
    attr.cap.max_recv_wr = shared_ != nullptr ? 0 : depth_;
    attr.cap.max_send_sge = 2;
    attr.cap.max_recv_sge = shared_ != nullptr ? 0 : 1;
    attr.cap.max_inline_data = max_inline;
    try {
      qp_ = std::make_unique<verbs::QueuePair>(pd_, attr,
                                               "depth=" + std::to_string(depth_) +
                                                   ", max_send_wr=" + std::to_string(send_slots_) +
                                                   ", max_inline=" + std::to_string(max_inline));
      break;
    } catch (const RdmaError& e) {
      if (e.errno_value() == EINVAL && max_inline > 0) continue;
      cq.unreserve(2 * static_cast<int>(depth_));
      throw;
    }
  }
  cq_ = &cq;  // the queue pair holds its reservation until destroy_queue_pair
  if (shared_ != nullptr) shared_->attach(qp_->number(), key_);
  max_inline_ = attr.cap.max_inline_data;
  ibv_qp_attr init{};
  int mask = 0;
  init.qp_state = IBV_QPS_INIT;
  if (rdma_init_qp_attr(id_.get(), &init, &mask) != 0) throw_errno("rdma_init_qp_attr(INIT)", errno);
  init.pkey_index = options_.pkey_index;
  qp_->modify(init, mask | IBV_QP_PKEY_INDEX, "INIT, pkey_index=" + std::to_string(options_.pkey_index));
}

void VerbsChannel::ready(uint32_t peer_mtu, bool withhold_remote_access) {
  // INIT once more, as librdmacm does for its own queue pairs: only now, after the connection
  // exchange, does rdma_cm know the remote access rights (REMOTE_WRITE, and READ and ATOMIC when
  // responder resources were agreed). Without it the active side's queue pair refuses every
  // one-sided operation of its peer.
  ibv_qp_attr init{};
  int mask = 0;
  init.qp_state = IBV_QPS_INIT;
  if (rdma_init_qp_attr(id_.get(), &init, &mask) != 0) throw_errno("rdma_init_qp_attr(INIT)", errno);
  init.pkey_index = options_.pkey_index;
  if (withhold_remote_access) {
    // Nothing of our memory before the peer's proof, even for a peer that knows or guesses an rkey:
    // the rights are applied once the engine has checked it (grant_remote_access).
    withheld_access_ = init.qp_access_flags;
    init.qp_access_flags = 0;
    mask |= IBV_QP_ACCESS_FLAGS;
  }
  qp_->modify(init, mask | IBV_QP_PKEY_INDEX, "INIT, access flags after the exchange");
  ibv_qp_attr rtr{};
  mask = 0;
  rtr.qp_state = IBV_QPS_RTR;
  if (rdma_init_qp_attr(id_.get(), &rtr, &mask) != 0) throw_errno("rdma_init_qp_attr(RTR)", errno);
  // Both ends take the smallest MTU either allows (the handshake carries each side's), so a packet
  // is never larger than what the other end's queue pair accepts.
  uint32_t mtu = mtu_bytes(rtr.path_mtu);
  if (options_.mtu != 0 && options_.mtu < mtu) mtu = options_.mtu;
  if (peer_mtu != 0 && peer_mtu < mtu) mtu = peer_mtu;
  rtr.path_mtu = static_cast<ibv_mtu>(mtu_enum(mtu));
  if (shared_ != nullptr) {
    // What a sender that found the shared queue empty waits before it tries again: 0.64 ms
    // (rdma_cm leaves 0, which means 655 ms). The loop re-posts on every turn.
    rtr.min_rnr_timer = 12;
    mask |= IBV_QP_MIN_RNR_TIMER;
  }
  rtr.ah_attr.sl = options_.service_level;
  if (rtr.ah_attr.is_global != 0) {
    rtr.ah_attr.grh.traffic_class = options_.traffic_class;
    if (options_.gid_index >= 0) rtr.ah_attr.grh.sgid_index = static_cast<uint8_t>(options_.gid_index);
  } else if (options_.traffic_class != 0 || options_.gid_index >= 0) {
    // An InfiniBand path within the subnet has no GRH: there is nothing to carry them.
    throw RdmaError(ErrorKind::kConfiguration,
                    "RDMA_TRAFFIC_CLASS and RDMA_GID_INDEX need a global route (GRH); this path has none", EINVAL);
  }
  qp_->modify(rtr, mask | IBV_QP_PATH_MTU | IBV_QP_AV,
              "RTR, path_mtu=" + std::to_string(mtu) + ", sgid_index=" + std::to_string(rtr.ah_attr.grh.sgid_index) +
                  ", sl=" + std::to_string(rtr.ah_attr.sl) +
                  ", traffic_class=" + std::to_string(rtr.ah_attr.grh.traffic_class));
  verify_kept(rtr);
  ibv_qp_attr rts{};
  mask = 0;
  rts.qp_state = IBV_QPS_RTS;
  if (rdma_init_qp_attr(id_.get(), &rts, &mask) != 0) throw_errno("rdma_init_qp_attr(RTS)", errno);
  rts.timeout = options_.timeout;
  rts.retry_cnt = options_.retry_count;
  rts.rnr_retry = options_.rnr_retry;
  qp_->modify(rts, mask | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY,
              "RTS, timeout=" + std::to_string(options_.timeout) + ", retry_cnt=" +
                  std::to_string(options_.retry_count) + ", rnr_retry=" + std::to_string(options_.rnr_retry));
}

void VerbsChannel::grant_remote_access() {
  if (withheld_access_ == 0) return;
  ibv_qp_attr attr{};
  attr.qp_access_flags = static_cast<unsigned int>(withheld_access_);
  qp_->modify(attr, IBV_QP_ACCESS_FLAGS,
              "RTS, access flags " + std::to_string(withheld_access_) + " once the peer proved itself");
  withheld_access_ = 0;
}

// Reads the queue pair back: a device that accepts an attribute but does not keep it (rxe has no
// service level) would otherwise drop the configuration silently.
void VerbsChannel::verify_kept(const ibv_qp_attr& wanted) const {
  ibv_qp_attr attr{};
  if (int rc = qp_->query(attr, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_PKEY_INDEX); rc != 0) {
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
  int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |
             IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_CAP;
  if (int rc = qp_->query(attr, mask); rc != 0) return "ibv_query_qp failed: " + errno_name(rc);
  return "qp " + std::to_string(qp_->number()) + " port=" + std::to_string(attr.port_num) +
         " path_mtu=" + std::to_string(mtu_bytes(attr.path_mtu)) +
         " sgid_index=" + std::to_string(attr.ah_attr.grh.sgid_index) +
         " traffic_class=" + std::to_string(attr.ah_attr.grh.traffic_class) + " sl=" + std::to_string(attr.ah_attr.sl) +
         " pkey_index=" + std::to_string(attr.pkey_index) + " timeout=" + std::to_string(attr.timeout) +
         " retry_cnt=" + std::to_string(attr.retry_cnt) + " rnr_retry=" + std::to_string(attr.rnr_retry) +
         " max_inline=" + std::to_string(max_inline_);
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
  if (id_) rdma_disconnect(id_.get());  // fails harmlessly (EINVAL) when not connected yet
  // rdma_cm moves only the queue pairs it owns to the error state: ours flushes its work here.
  if (qp_ != nullptr) qp_->to_error();
}

}  // namespace jrdma
