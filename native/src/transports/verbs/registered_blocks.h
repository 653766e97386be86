// Registered channel memory: a channel takes a block when it is created and gives it back when it
// is destroyed. Two shapes:
// - a channel with a receive queue of its own: one block, registered whole (local write only; its
//   ring slots are receive buffers). Blocks that come back are kept registered, up to a bound, so the
//   next channel of that size costs no ibv_reg_mr — which matters on the loop thread, where accepted
//   channels are created.
// - a channel that receives through a shared receive queue: its ring is plain memory (not registered)
//   and its header slots and results a slice of a registered slab shared with other channels
//   (RegisteredSlices: one registration for many channels).
// A listener puts one block aside when it starts listening (on the caller's thread), so its first
// accept does not register either. Thread-safe.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "context/channel_memory.h"
#include "transports/verbs/memory_region.h"
#include "transports/verbs/registered_slices.h"

namespace jrdma {

struct RegisteredBlock {
  ChannelMemory memory;                         // with memory.control set when the header slots and results are `slice`
  std::unique_ptr<verbs::MemoryRegion> region;  // the whole block's registration, or null
  RegisteredSlice slice;                        // where the block has no registration of its own
  uint32_t lkey() const noexcept { return region != nullptr ? region->lkey() : slice.lkey; }
};

class RegisteredBlocks {
 public:
  RegisteredBlocks(ibv_pd* pd, std::size_t max_kept) : pd_(pd), max_kept_(max_kept), slices_(pd) {}
  ~RegisteredBlocks() { release(); }
  RegisteredBlocks(const RegisteredBlocks&) = delete;
  RegisteredBlocks& operator=(const RegisteredBlocks&) = delete;

  // A block for a channel's `size` bytes (ChannelMemoryLayout). `ring` 0: registered whole (a kept
  // block, or a new one). Otherwise the block is the first `ring` bytes, plain, and the rest a slice.
  // Throws RdmaError.
  RegisteredBlock take(std::size_t size, std::size_t ring);
  // Keeps a whole block (still registered) when there is room; otherwise deregisters and frees it.
  // A ring's block is freed and its slice given back.
  void give_back(RegisteredBlock block) noexcept;
  // Registers what the next take(size, ring) needs, unless there is one already (best effort: a
  // failure, e.g. the memlock limit, only means the first channel registers its own).
  void put_aside(std::size_t size, std::size_t ring) noexcept;
  // Deregisters and frees every kept block and slab (before the protection domain goes).
  void release() noexcept;

 private:
  static void discard(RegisteredBlock& block) noexcept;

  ibv_pd* pd_;
  std::size_t max_kept_;
  std::mutex mutex_;
  std::vector<RegisteredBlock> kept_;
  RegisteredSlices slices_;
};

}  // namespace jrdma
