// Registered channel memory, kept for reuse: a channel takes a block (mapped and registered local
// write only) when it is created and gives it back when it is destroyed. Blocks that come back are
// kept registered, up to a bound, so the next channel of that size costs no ibv_reg_mr — which
// matters on the loop thread, where accepted channels are created. A listener puts one block aside
// when it starts listening (on the caller's thread), so its first accept does not register either.
// Thread-safe.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "context/channel_memory.h"
#include "transports/verbs/memory_region.h"

namespace jrdma {

struct RegisteredBlock {
  ChannelMemory memory;
  std::size_t registered_from = 0;  // the region covers [memory.base + registered_from, end)
  std::unique_ptr<verbs::MemoryRegion> region;
};

class RegisteredBlocks {
 public:
  RegisteredBlocks(ibv_pd* pd, std::size_t max_kept) : pd_(pd), max_kept_(max_kept) {}
  ~RegisteredBlocks() { release(); }
  RegisteredBlocks(const RegisteredBlocks&) = delete;
  RegisteredBlocks& operator=(const RegisteredBlocks&) = delete;

  // A kept block of that size and registered part, or a new one (mapped, and registered from
  // `registered_from` to its end now: a channel over a shared receive queue registers no ring).
  // Throws RdmaError.
  RegisteredBlock take(std::size_t size, std::size_t registered_from);
  // Keeps the block (still registered) when there is room; otherwise deregisters and frees it.
  void give_back(RegisteredBlock block) noexcept;
  // Registers one block of that size for later, unless one is kept already (best effort: a
  // failure, e.g. the memlock limit, only means the first channel registers its own).
  void put_aside(std::size_t size, std::size_t registered_from) noexcept;
  // Deregisters and frees every kept block (before the protection domain goes).
  void release() noexcept;

 private:
  static void discard(RegisteredBlock& block) noexcept;

  ibv_pd* pd_;
  std::size_t max_kept_;
  std::mutex mutex_;
  std::vector<RegisteredBlock> kept_;
};

}  // namespace jrdma
