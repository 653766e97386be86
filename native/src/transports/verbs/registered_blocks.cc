#include "transports/verbs/registered_blocks.h"

#include "base/error.h"

namespace jrdma {

RegisteredBlock RegisteredBlocks::take(std::size_t size, std::size_t ring) {
  RegisteredBlock block;
  if (ring != 0) {
    block.slice = slices_.take(size - ring);
    try {
      block.memory = allocate_channel_memory(ring);
    } catch (...) {
      slices_.give_back(block.slice);
      throw;
    }
    block.memory.control = block.slice.address;
    return block;
  }
  size = rounded_to_pages(size);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->memory.size == size) {
        block = std::move(*it);
        kept_.erase(it);
        return block;
      }
    }
  }
  block.memory = allocate_channel_memory(size);
  try {
    block.region =
        std::make_unique<verbs::MemoryRegion>(pd_, block.memory.base, block.memory.size, IBV_ACCESS_LOCAL_WRITE);
  } catch (...) {
    free_channel_memory(block.memory);
    throw;
  }
  return block;
}

void RegisteredBlocks::give_back(RegisteredBlock block) noexcept {
  if (block.memory.base == nullptr) return;
  if (block.region == nullptr) {
    slices_.give_back(block.slice);
    free_channel_memory(block.memory);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() < max_kept_) {
      try {
        kept_.push_back(std::move(block));
        return;
      } catch (const std::bad_alloc&) {
        // not kept: freed below
      }
    }
  }
  discard(block);
}

void RegisteredBlocks::put_aside(std::size_t size, std::size_t ring) noexcept {
  if (ring == 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const RegisteredBlock& block : kept_) {
      if (block.memory.size == rounded_to_pages(size)) return;
    }
  }
  try {
    give_back(take(size, ring));  // a ring's slice stays behind in its (kept) empty slab
  } catch (const std::exception&) {
    // the first channel registers its own
  }
}

void RegisteredBlocks::release() noexcept {
  std::vector<RegisteredBlock> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks.swap(kept_);
  }
  for (RegisteredBlock& block : blocks) discard(block);
  slices_.release();
}

void RegisteredBlocks::discard(RegisteredBlock& block) noexcept {
  block.region.reset();  // deregistered before the memory is released
  free_channel_memory(block.memory);
  block.memory = ChannelMemory{};
}

}  // namespace jrdma
