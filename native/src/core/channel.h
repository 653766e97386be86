// One channel of a context: its memory block, the verbs transport (cm id, QP, registration) and
// the protocol engine on top, created together and destroyed in reverse (engine, QP and
// registration, then the memory). Created on any thread (active side) or on the loop thread
// (passive side); destroyed on the loop thread.
#pragma once

#include <cstdint>

#include "core/channel_memory.h"
#include "protocol/channel_engine.h"
#include "transport/verbs_channel.h"

namespace jrdma {

struct ChannelOptions {
  QueuePairOptions queue_pair;
  uint32_t graceful_close_ms = 2000;
};

// How long a graceful close waits for posted operations: twice the transport's own give-up time
// (4.096 us x 2^timeout per try, retry_count + 1 tries), at least 2 s. Posted operations normally
// complete or fail well within it; should the device never report them, the channel closes anyway.
inline uint32_t graceful_close_ms(uint8_t timeout, uint8_t retry_count) noexcept {
  double ack_timeout_ms = 4.096e-3 * static_cast<double>(1ull << (timeout > 31 ? 31 : timeout));
  double ms = 2 * ack_timeout_ms * (retry_count + 1);
  return ms < 2000 ? 2000 : ms > 3.6e6 ? 3600000u : static_cast<uint32_t>(ms);
}

// Owns a channel memory block (allocate in the constructor, free in the destructor).
class ChannelMemoryBlock {
 public:
  explicit ChannelMemoryBlock(std::size_t size) : memory_(allocate_channel_memory(size)) {}
  ~ChannelMemoryBlock() { free_channel_memory(memory_); }
  ChannelMemoryBlock(const ChannelMemoryBlock&) = delete;
  ChannelMemoryBlock& operator=(const ChannelMemoryBlock&) = delete;
  ChannelMemory get() const noexcept { return memory_; }

 private:
  ChannelMemory memory_;
};

class Channel {
 public:
  Channel(uint32_t channel_key, bool is_passive, const ChannelOptions& channel_options, ibv_pd* pd,
          verbs::CompletionQueue& cq, LoopCommands& loop, EventSink& sink)
      : key(channel_key),
        passive(is_passive),
        options(channel_options),
        memory_(ChannelMemoryLayout::of(options.queue_pair.depth, options.queue_pair.eager).size),
        transport(key, options.queue_pair, pd, cq, memory_.get(), loop),
        engine(key, engine_options(options), memory_.get(), sink) {}

  static EngineOptions engine_options(const ChannelOptions& o) noexcept {
    EngineOptions e;
    e.depth = o.queue_pair.depth;
    e.eager = o.queue_pair.eager;
    e.graceful_close_ms = o.graceful_close_ms;
    return e;
  }
  ChannelMemory memory() const noexcept { return memory_.get(); }

  const uint32_t key;
  const bool passive;
  const ChannelOptions options;

 private:
  ChannelMemoryBlock memory_;  // first in, last out

 public:
  VerbsChannel transport;
  ChannelEngine engine;
  bool dirty = false;  // loop thread: the engine had events in this batch and flushes at its end
};

}  // namespace jrdma
