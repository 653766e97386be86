#include "context/channel_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"

namespace jrdma {

namespace {
std::mutex free_blocks_mutex;
// Freed blocks by size: a burst of thousands of channels closing and the next burst opening finds
// each block in constant time.
std::unordered_map<std::size_t, std::vector<ChannelMemory>>& free_blocks() {
  static auto* blocks = new std::unordered_map<std::size_t, std::vector<ChannelMemory>>();  // process lifetime
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
    auto it = free_blocks().find(size);
    if (it != free_blocks().end() && !it->second.empty()) {
      ChannelMemory reused = it->second.back();
      it->second.pop_back();
      return reused;
    }
  }
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw_errno("mmap(channel memory, " + std::to_string(size) + " bytes)", errno);
  return ChannelMemory{static_cast<uint8_t*>(base), size};
}

void discard_channel_memory(ChannelMemory memory) noexcept {
  if (memory.base != nullptr) madvise(memory.base, memory.size, MADV_DONTNEED);  // zero pages from now on
}

std::size_t resident_channel_memory(ChannelMemory memory) noexcept {
  auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> pages((memory.size + page - 1) / page);
  if (memory.base == nullptr || mincore(memory.base, memory.size, pages.data()) != 0) return 0;
  std::size_t resident = 0;
  for (unsigned char p : pages) resident += (p & 1) != 0 ? page : 0;
  return resident;
}

void free_channel_memory(ChannelMemory memory) noexcept {
  if (memory.base == nullptr) return;
  discard_channel_memory(memory);  // nothing resident
  std::lock_guard<std::mutex> lock(free_blocks_mutex);
  try {
    free_blocks()[memory.size].push_back(memory);
  } catch (const std::bad_alloc&) {
    // Not reusable then; the mapping stays (zero pages), as a view may still point at it.
  }
}

}  // namespace jrdma
