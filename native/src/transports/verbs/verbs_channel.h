// The verbs transport of one channel: its rdma_cm id, RC queue pair and the registration of the
// channel's memory. It turns the engine's work requests into one ibv_post_send chain (header slot
// + payload as two SGEs, inline when small) and receive slots into ibv_post_recv calls. Set-up
// and teardown run on the context's loop thread; posting on whichever thread the engine runs.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.h"
#include "context/posted_slots.h"
#include "protocol/channel_settings.h"
#include "protocol/transport.h"
#include "transports/verbs/cm_id.h"
#include "transports/verbs/completion_queues.h"
#include "transports/verbs/queue_pair.h"
#include "transports/verbs/shared_receive_queue.h"
#include "transports/verbs/work_request_id.h"

namespace jrdma {

// What the transport needs from the loop that owns it: disconnecting from another thread is
// queued to the loop (rdma_cm calls on an id stay on one thread).
class LoopCommands {
 public:
  virtual ~LoopCommands() = default;
  virtual bool in_loop_thread() const noexcept = 0;
  virtual void disconnect_later(uint32_t key) noexcept = 0;
};

// What the configuration asks of a channel's queue pair (docs/configuration.md). The queue pair
// is driven through INIT, RTR and RTS here, starting from what rdma_cm computes for the connection
// (rdma_init_qp_attr) and applying these on top, so every option reaches the wire.
struct QueuePairOptions {
  uint32_t max_inline = 236;  // capped by the device when the queue pair is created
  uint8_t timeout = 14;
  uint8_t retry_count = 6;
  uint8_t rnr_retry = 7;  // forever: a shared receive queue can be empty for a moment
  uint8_t port = 0;       // the context's port; a connection over another port is refused (0: any)
  int gid_index = -1;     // source GID index; -1: the one rdma_cm chose for the address
  uint32_t mtu = 0;       // path MTU in bytes (256..4096); 0: the path's
  uint16_t pkey_index = 0;
  uint8_t service_level = 0;
  uint8_t traffic_class = 0;  // GRH traffic class (IP TOS on RoCE v2)
};

// The settings record's verbs part as a queue pair's options.
inline QueuePairOptions queue_pair_options(const ChannelSettings& s) noexcept {
  QueuePairOptions q;
  q.max_inline = s.max_inline;
  q.timeout = static_cast<uint8_t>(s.timeout);
  q.retry_count = static_cast<uint8_t>(s.retry_count);
  q.rnr_retry = static_cast<uint8_t>(s.rnr_retry);
  q.port = static_cast<uint8_t>(s.port);
  q.gid_index = s.gid_index;
  q.mtu = s.mtu;
  q.pkey_index = static_cast<uint16_t>(s.pkey_index);
  q.service_level = static_cast<uint8_t>(s.service_level);
  q.traffic_class = static_cast<uint8_t>(s.traffic_class);
  return q;
}

// A configured queue-pair attribute the device did not keep (read back after the transition):
// the device cannot honour it, e.g. a service level on Soft-RoCE, which has no field for it.
enum class QueuePairAttribute : int32_t {
  kServiceLevel = 1,
  kTrafficClass = 2,
  kPathMtu = 3,
  kGidIndex = 4,
  kPkeyIndex = 5
};

class AttributeRefused : public RdmaError {
 public:
  AttributeRefused(QueuePairAttribute attribute, uint32_t configured, uint32_t kept);
  QueuePairAttribute attribute;
  uint32_t configured;
  uint32_t kept;
};

// 256 -> IBV_MTU_256 ... 4096 -> IBV_MTU_4096; 0 for anything else.
int mtu_enum(uint32_t bytes) noexcept;
uint32_t mtu_bytes(int mtu) noexcept;

// The sends a channel of queue depth `depth` keeps in flight over verbs: its queue pair's max_send_wr.
// Devices size a send queue in powers of two with a slot more than asked (Soft-RoCE: the next power of
// two above max_send_wr + 1), so a power-of-two depth asked for as is gets a queue twice its size —
// 256 slots of 512 bytes (inline data) at the default 128: 64 KiB more per channel to clear and map at
// set-up and to pin while the channel lives. One send fewer in flight keeps the queue at depth slots.
constexpr uint32_t verbs_send_slots(uint32_t depth) noexcept {
  return depth >= 4 && (depth & (depth - 1)) == 0 ? depth - 1 : depth;
}

class VerbsChannel : public ChannelTransport {
 public:
  // `memory` is the channel's block; its ring has the engine's shape (`ring`: depth slots of eager
  // bytes); the send queue holds `ring.send_slots` (0: depth). With `shared` (a shared receive queue of the context) messages arrive there and the loop
  // copies each into a ring slot this channel posted (take_posted), and only the header slots and
  // results are registered (local write only) under `memory_lkey`; without, the whole block is, and
  // each slot is a receive work request of the queue pair's own receive queue.
  VerbsChannel(uint32_t key, const QueuePairOptions& options, const EngineOptions& ring, ibv_pd* pd,
               verbs::CompletionQueues& cqs, verbs::SharedReceiveQueue* shared, ChannelMemory memory,
               uint32_t memory_lkey, LoopCommands& loop);
  ~VerbsChannel() override;
  VerbsChannel(const VerbsChannel&) = delete;
  VerbsChannel& operator=(const VerbsChannel&) = delete;

  // --- loop thread: set-up -----------------------------------------------------------------
  void attach(verbs::CmId id) noexcept { id_ = std::move(id); }
  // Gives the cm id back (the caller rejects and destroys it); the QP, if any, is destroyed.
  verbs::CmId detach() noexcept;
  // Creates the QP with the PD and CQ (not attached to the cm id: the transitions below apply the
  // configuration) and moves it to INIT. Throws RdmaError naming the call.
  void create_queue_pair();
  // RTR then RTS with the configured attributes; the path MTU is the smallest of the configured
  // one, the peer's (0: none) and the path's. Throws RdmaError naming the call and attribute, or
  // AttributeRefused when the device does not keep a configured attribute. With
  // `withhold_remote_access` (a server that waits for the client's proof of the pre-shared key) the
  // queue pair grants no remote access until grant_remote_access().
  void ready(uint32_t peer_mtu, bool withhold_remote_access = false);
  // The peer proved itself: the remote access rights rdma_cm agreed on (RTS -> RTS).
  void grant_remote_access() override;
  uint32_t qp_num() const noexcept { return qp_ != nullptr ? qp_->number() : 0; }
  // The queue pair's attributes as the device reports them (ibv_query_qp), as text.
  std::string describe_queue_pair() const;
  rdma_cm_id* cm_id() const noexcept { return id_.get(); }
  verbs::CmId& cm_id_owner() noexcept { return id_; }
  const QueuePairOptions& options() const noexcept { return options_; }
  // Disconnects now (loop thread; idempotent).
  void disconnect_now() noexcept;

  // --- ChannelTransport ----------------------------------------------------------------------
  void post_chain(const WorkRequest* requests, int count) override;
  void post_receives(const uint32_t* slots, int count) override;
  uint32_t memory_key() const noexcept override { return memory_lkey_; }

  // --- loop thread: receiving through the shared receive queue -------------------------------
  // The ring slot the next message of this channel goes to: the one posted last
  // (context/posted_slots.h). False when none is posted: the peer sent beyond its credits.
  bool take_posted(uint32_t* slot) noexcept;
  uint8_t* ring_slot(uint32_t slot) const noexcept { return memory_.base + static_cast<std::size_t>(slot) * eager_; }
  void disconnect() noexcept override;
  Exposure expose_for_read(uint64_t address, uint64_t length) override;
  void revoke(uint64_t handle) noexcept override;

 private:
  void build(const WorkRequest& request, ibv_send_wr& wr, ibv_sge* sge) const;
  void destroy_queue_pair() noexcept;

  const uint32_t key_;
  const QueuePairOptions options_;
  const uint32_t depth_;       // the ring's slots: receives posted
  const uint32_t send_slots_;  // sends in flight at most: the send queue's max_send_wr
  const uint32_t eager_;       // bytes per slot
  ibv_pd* pd_;
  verbs::CompletionQueues& cqs_;
  verbs::CompletionQueue* cq_ = nullptr;  // where the queue pair completes, while it exists
  verbs::SharedReceiveQueue* shared_;     // null: the queue pair's own receive queue
  ChannelMemory memory_;
  uint32_t memory_lkey_;
  LoopCommands& loop_;
  void verify_kept(const ibv_qp_attr& wanted) const;

  verbs::CmId id_;
  std::unique_ptr<verbs::QueuePair> qp_;
  std::atomic<bool> disconnected_{false};
  uint32_t max_inline_ = 0;
  int withheld_access_ = 0;  // loop thread: remote access flags not granted yet (0: none withheld)
  // Scratch for post_chain, sized to the queue depth once: no allocation per post.
  std::vector<ibv_send_wr> chain_wrs_;
  std::vector<ibv_sge> chain_sges_;
  // With a shared receive queue: the ring slots the engine posted (take_posted).
  std::mutex posted_mutex_;
  PostedSlots posted_;
  // Transfer sources the peer may read now (revoked by the engine; any left at destruction too).
  std::mutex exposures_mutex_;
  std::vector<ibv_mr*> exposures_;
};

}  // namespace jrdma
