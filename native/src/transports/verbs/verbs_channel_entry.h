// One channel of a context: its memory block (registered whole, or a plain receive ring and a slice
// of a registered slab when the channel receives through a shared receive queue), the verbs transport (cm id, QP) and the
// protocol engine on top, created together and destroyed in reverse (engine, QP, then the block
// goes back to the context's RegisteredBlocks). Created on any thread (active side) or on the loop thread
// (passive side); destroyed on the loop thread.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "context/command_queue.h"
#include "context/connect_target.h"
#include "context/pending_connections.h"
#include "protocol/channel_engine.h"
#include "transports/verbs/registered_blocks.h"
#include "transports/verbs/verbs_channel.h"

namespace jrdma {

// What a listener's or a created channel's channels are configured with: the engine's options
// (every transport), the queue pair's (verbs only) and a listener's own. Decoded from Java's
// settings record (protocol/channel_settings.h) by the JNI layer.
struct ChannelOptions {
  EngineOptions engine;         // the context fills in budget, read_chunk and max_reads
  QueuePairOptions queue_pair;  // the verbs transport's
  uint32_t max_pending = 64;    // listeners: accepted requests not established yet (maxPendingConnections)
  bool admission = false;       // listeners: Java's admission policy decides on each request
};

// A registered memory block taken from the context's RegisteredBlocks for the channel's lifetime.
class BlockLease {
 public:
  BlockLease(RegisteredBlocks& blocks, std::size_t size, std::size_t ring)
      : blocks_(blocks), block_(blocks.take(size, ring)) {}
  ~BlockLease() { blocks_.give_back(std::move(block_)); }
  BlockLease(const BlockLease&) = delete;
  BlockLease& operator=(const BlockLease&) = delete;
  ChannelMemory memory() const noexcept { return block_.memory; }
  uint32_t lkey() const noexcept { return block_.lkey(); }

 private:
  RegisteredBlocks& blocks_;
  RegisteredBlock block_;
};

class VerbsChannelEntry {
 public:
  // `shared`: the context's shared receive queue for the channel's eager size, or null.
  VerbsChannelEntry(uint32_t channel_key, bool is_passive, const ChannelOptions& channel_options,
                    RegisteredBlocks& blocks, ibv_pd* pd, verbs::CompletionQueues& cqs,
                    verbs::SharedReceiveQueue* shared, LoopCommands& loop, EventSink& sink)
      : key(channel_key),
        passive(is_passive),
        options(with_verbs_send_queue(channel_options)),
        memory_(blocks, memory_size(options), plain_ring(options, shared != nullptr)),
        transport(key, options.queue_pair, options.engine, pd, cqs, shared, memory_.memory(), memory_.lkey(), loop),
        engine(key, options.engine, memory_.memory(), sink) {}

  // The engine keeps no more sends in flight than the queue pair's send queue holds.
  static ChannelOptions with_verbs_send_queue(ChannelOptions o) {
    o.engine.send_slots = verbs_send_slots(o.engine.depth);
    return o;
  }
  static std::size_t memory_size(const ChannelOptions& o) noexcept {
    return ChannelMemoryLayout::of(o.engine.depth, o.engine.eager).size;
  }
  // The ring's bytes when it is plain memory (the loop copies messages into it from a shared receive
  // queue: only the header slots and results are registered); 0: the block is registered whole.
  static std::size_t plain_ring(const ChannelOptions& o, bool shared) noexcept {
    return shared ? ChannelMemoryLayout::of(o.engine.depth, o.engine.eager).headers : 0;
  }
  ChannelMemory memory() const noexcept { return memory_.memory(); }

  const uint32_t key;
  const bool passive;
  const ChannelOptions options;

 private:
  BlockLease memory_;  // first in, last out: given back after the QP and the engine are gone

 public:
  VerbsChannel transport;
  ChannelEngine engine;
  bool dirty = false;  // loop thread: the engine had events in this batch and flushes at its end
  // Loop thread: an accepted channel's place among the pending connections, until it is
  // established (and, with a pre-shared key, its peer proved it) or gone.
  PendingPlace pending;
  ConnectTarget connect_target;               // active side: written before the connect is queued
  std::atomic<uint8_t> deferred_commands{0};  // DeferredCommand bits
  // Active side: the connect data sent with the request (admission), and a refusal's text.
  std::vector<uint8_t> connect_data;
  std::string refusal_text;
};

}  // namespace jrdma
