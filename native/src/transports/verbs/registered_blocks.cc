#include "transports/verbs/registered_blocks.h"

#include "base/error.h"

namespace jrdma {

RegisteredBlock RegisteredBlocks::take(std::size_t size, std::size_t registered_from) {
  size = rounded_to_pages(size);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->memory.size == size && it->registered_from == registered_from) {
        RegisteredBlock block = std::move(*it);
        kept_.erase(it);
        return block;
      }
    }
  }
  RegisteredBlock block;
  block.memory = allocate_channel_memory(size);
  block.registered_from = registered_from;
  try {
    block.region = std::make_unique<verbs::MemoryRegion>(pd_, block.memory.base + registered_from,
                                                         block.memory.size - registered_from, IBV_ACCESS_LOCAL_WRITE);
  } catch (...) {
    free_channel_memory(block.memory);
    throw;
  }
  return block;
}

void RegisteredBlocks::give_back(RegisteredBlock block) noexcept {
  if (block.memory.base == nullptr) return;
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

void RegisteredBlocks::put_aside(std::size_t size, std::size_t registered_from) noexcept {
  size = rounded_to_pages(size);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const RegisteredBlock& block : kept_) {
      if (block.memory.size == size && block.registered_from == registered_from) return;
    }
  }
  try {
    give_back(take(size, registered_from));
  } catch (const std::exception&) {
    // the first channel registers its own block
  }
}

void RegisteredBlocks::release() noexcept {
  std::vector<RegisteredBlock> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks.swap(kept_);
  }
  for (RegisteredBlock& block : blocks) discard(block);
}

void RegisteredBlocks::discard(RegisteredBlock& block) noexcept {
  block.region.reset();  // deregistered before the memory is released
  free_channel_memory(block.memory);
  block.memory = ChannelMemory{};
}

}  // namespace jrdma
