#include "context/channel_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "base/error.h"

namespace jrdma {

namespace {
std::mutex free_blocks_mutex;
std::vector<ChannelMemory>& free_blocks() {
  static auto* blocks = new std::vector<ChannelMemory>();  // process lifetime, like the mappings
  return *blocks;
}

}  // namespace

std::size_t rounded_to_pages(std::size_t size) noexcept {
  auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (size + page - 1) / page * page;
}

ChannelMemory allocate_channel_memory(std::size_t size) {
  size = rounded_to_pages(size);
  {
    std::lock_guard<std::mutex> lock(free_blocks_mutex);
    auto& blocks = free_blocks();
    for (auto it = blocks.begin(); it != blocks.end(); ++it) {
      if (it->size == size) {
        ChannelMemory reused = *it;
        blocks.erase(it);
        return reused;
      }
    }
  }
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw_errno("mmap(channel memory, " + std::to_string(size) + " bytes)", errno);
  return ChannelMemory{static_cast<uint8_t*>(base), size};
}

void free_channel_memory(ChannelMemory memory) noexcept {
  if (memory.base == nullptr) return;
  madvise(memory.base, memory.size, MADV_DONTNEED);  // zero pages from now on; nothing resident
  std::lock_guard<std::mutex> lock(free_blocks_mutex);
  try {
    free_blocks().push_back(memory);
  } catch (const std::bad_alloc&) {
    // Not reusable then; the mapping stays (zero pages), as a view may still point at it.
  }
}

}  // namespace jrdma
