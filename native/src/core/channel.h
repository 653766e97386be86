// One RC connection: its rdma_cm id, queue pair, the registered send-header slots, and the
// receive buffers (Java-owned memory registered by Java, see JniChannel). Posting methods run on
// the caller's thread (Java serializes them per channel); everything else runs on the context's
// loop thread.
#pragma once

#include <rdma/rdma_cma.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/work_request.h"
#include "verbs/memory_region.h"
#include "wire/handshake.h"
#include "wire/message_header.h"

namespace jrdma {

class Context;

// wr_id layout: channel key (32 bits) | receive flag (1 bit) | slot (31 bits).
constexpr uint64_t kReceiveFlag = 1ull << 31;
inline uint64_t make_wr_id(uint32_t key, bool receive, uint32_t slot) {
  return (static_cast<uint64_t>(key) << 32) | (receive ? kReceiveFlag : 0) | (slot & 0x7fffffffu);
}
inline uint32_t wr_id_key(uint64_t wr_id) { return static_cast<uint32_t>(wr_id >> 32); }
inline bool wr_id_is_receive(uint64_t wr_id) { return (wr_id & kReceiveFlag) != 0; }
inline uint32_t wr_id_slot(uint64_t wr_id) { return static_cast<uint32_t>(wr_id & 0x7fffffffu); }

struct ChannelOptions {
  uint32_t depth = 128;   // send and receive queue depth; receive credits announced to the peer
  uint32_t eager = 4096;  // bytes per receive buffer, header included
  uint32_t max_inline = 236;  // capped by the device's limit at queue pair creation
  uint8_t timeout = 14;
  uint8_t retry_count = 6;
  uint8_t rnr_retry = 6;
};

enum class ChannelState { kConnecting, kAccepting, kEstablished, kDisconnected };

class Channel {
 public:
  Channel(Context& context, const ChannelOptions& options, bool passive);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // --- loop thread: connection set-up -------------------------------------------------------
  void attach(rdma_cm_id* id, uint32_t key);
  // Gives the cm id up (it is rejected and destroyed by the caller); the QP, if any, goes with it.
  void detach() noexcept;
  // Creates the QP on the cm id with the context's PD and CQ, and the header slots.
  void create_queue_pair();
  // Java registered the receive memory: remember it and post every receive buffer.
  void set_receive_buffers(uint64_t address, uint32_t lkey, uint32_t slots);
  wire::Handshake local_handshake() const;
  void set_peer(const wire::Handshake& peer) { peer_ = peer; }

  // --- any thread (per-channel serialized by Java): posting ---------------------------------
  // Posts `count` work requests with one ibv_post_send, in order. Every field is checked first;
  // on any error nothing is posted from the bad request on, and RdmaError says which one failed.
  void post_batch(const WorkRequestDescriptor* requests, int count);
  // One signaled request each (the native benchmark and tests; Java posts batches).
  void post_send(uint32_t slot, wire::MessageType type, uint16_t credits, uint64_t message_id, uint64_t address,
                 uint32_t length, uint32_t lkey);
  void post_write(uint32_t slot, uint64_t address, uint32_t length, uint32_t lkey, uint64_t remote_address,
                  uint32_t rkey, bool with_immediate, uint32_t immediate);
  void post_read(uint32_t slot, uint64_t address, uint32_t length, uint32_t lkey, uint64_t remote_address,
                 uint32_t rkey);
  // Re-posts the given receive slots in one ibv_post_recv call.
  void repost_receives(const int32_t* slots, int count);

  // --- loop thread: receive decoding ---------------------------------------------------------
  wire::DecodeStatus decode(uint32_t slot, uint32_t byte_len, wire::MessageHeader* header) const;

  rdma_cm_id* cm_id() const noexcept { return id_; }
  uint32_t key() const noexcept { return key_; }
  bool passive() const noexcept { return passive_; }
  const ChannelOptions& options() const noexcept { return options_; }
  const wire::Handshake& peer() const noexcept { return peer_; }
  uint32_t receive_slots() const noexcept { return receive_slots_; }
  ChannelState state = ChannelState::kConnecting;

  // Disconnects (idempotent); the QP goes to the error state and its work requests flush.
  void disconnect() noexcept;

 private:
  // Fills wr (and its two sges) from one descriptor, checking every field.
  void build(const WorkRequestDescriptor& request, ibv_send_wr& wr, ibv_sge* sge);
  void detach_queue_pair() noexcept;

  Context& context_;
  ChannelOptions options_;
  bool passive_;
  rdma_cm_id* id_ = nullptr;
  uint32_t key_ = 0;
  bool qp_created_ = false;
  bool disconnected_ = false;
  wire::Handshake peer_;
  uint32_t max_inline_ = 0;
  // One 16-byte header slot per send slot, registered once.
  std::vector<uint8_t> headers_;
  std::unique_ptr<verbs::MemoryRegion> headers_mr_;
  // Scratch for post_batch, sized to the queue depth once: no allocation per post.
  std::vector<ibv_send_wr> batch_wrs_;
  std::vector<ibv_sge> batch_sges_;
  uint64_t receive_address_ = 0;
  uint32_t receive_lkey_ = 0;
  uint32_t receive_slots_ = 0;
};

}  // namespace jrdma
