// The seam between the channel engine and a transport. The engine decides what to post and when;
// a transport moves it: verbs today (transport/verbs_channel), an in-memory fake in the unit
// tests, TCP and shared memory later. Completions flow the other way: whoever polls the
// transport calls the engine's on_* methods.
#pragma once

#include <cstdint>

#include "protocol/submission.h"

namespace jrdma {

// One entry of a send chain, built by the engine. For kSend/kCredit/kControl the transport sends
// header_length bytes of the header slot followed by [local_address, +length); the header lives in
// the channel's memory. kTransferRead is an RDMA READ like kRead.
struct WorkRequest {
  OpKind kind;
  bool signaled;          // asks for a completion; a completion also completes every earlier request
  uint32_t slot;          // send slot; comes back with the completion
  const uint8_t* header;  // kSend/kCredit/kControl: the encoded header (and control payload)
  uint32_t header_length;
  uint64_t local_address;
  uint32_t length;
  uint32_t lkey;
  uint64_t remote_address;
  uint32_t rkey;
  uint32_t immediate;
  uint64_t compare_add;
  uint64_t swap;
};

// A channel's own memory: receive ring, header slots and atomic results in one block, which the
// transport registers (local write only) when it attaches (ChannelMemoryLayout) — or, where `control`
// is set, the ring alone, and the header slots and results at `control` (verbs over a shared receive
// queue: carved from a registered slab of many channels', transports/verbs/registered_slices.h).
struct ChannelMemory {
  uint8_t* base = nullptr;
  std::size_t size = 0;
  uint8_t* control = nullptr;  // header slots, then results; null: at the layout's offsets in the block
};

class ChannelTransport {
 public:
  virtual ~ChannelTransport() = default;
  // Posts the requests in order as one chain. Throws RdmaError naming the call on failure (some
  // requests may then be on the wire: the engine closes the channel).
  virtual void post_chain(const WorkRequest* requests, int count) = 0;
  // Posts receive buffers: slot s is [ring + s * eager, + eager).
  virtual void post_receives(const uint32_t* slots, int count) = 0;
  // The key under which the channel's memory is registered (lkey of the header and result slots).
  virtual uint32_t memory_key() const noexcept = 0;
  // Tears the connection down (idempotent, any thread): posted requests complete or flush.
  virtual void disconnect() noexcept = 0;
  // Makes exactly [address, +length) readable by the peer (RDMA READ only) until revoke(): the
  // source of one rendezvous transfer. Returns the handle to revoke and the key for the peer.
  // Throws RdmaError with the errno when the memory cannot be exposed.
  struct Exposure {
    uint64_t handle = 0;
    uint32_t rkey = 0;
  };
  virtual Exposure expose_for_read(uint64_t address, uint64_t length) = 0;
  virtual void revoke(uint64_t handle) noexcept = 0;
  // The engine will not read the peer's source under `rkey` (it refused the transfer): a transport
  // that received its bytes ahead of the READ (TCP, shared memory: stream/sources_ahead.h) drops
  // them. Called before the engine answers the peer. Over verbs nothing is held (default: nothing).
  virtual void forgo_read(uint32_t rkey) noexcept { (void)rkey; }
  // The peer released memory this side granted it under `rkey` (remote-memory agent): where the
  // transport itself checks keys (TCP, shared memory), the key stops working now, in stream order,
  // so an operation the peer posted after its release finds nothing. Over verbs the device checks
  // the key until Java deregisters the memory, as soon as it has the release (default: nothing here).
  virtual void revoke_remote_key(uint32_t rkey) noexcept { (void)rkey; }
  // The peer proved it holds the pre-shared key, or needs no proof: only from now on may its
  // one-sided requests reach this side's memory (docs/security.md, "Nothing before the proof").
  // Called once, by the engine, before the channel opens for Java and before the server's own
  // proof leaves. Throws RdmaError when access cannot be granted (the engine fails the connect).
  virtual void grant_remote_access() {}
};

}  // namespace jrdma
