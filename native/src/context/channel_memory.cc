#include "context/channel_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"

namespace jrdma {

namespace {
constexpr std::size_t kHugePage = 2u << 20;

std::mutex free_blocks_mutex;
using FreeBlocks = std::unordered_map<std::size_t, std::vector<ChannelMemory>>;
// Freed blocks by size: a burst of thousands of channels closing and the next burst opening finds
// each block in constant time. Channel blocks and pool pages (aligned to huge pages) apart.
FreeBlocks& free_blocks(bool pool) {
  static auto* channels = new FreeBlocks();  // process lifetime
  static auto* pools = new FreeBlocks();
  return pool ? *pools : *channels;
}

bool take_free(bool pool, std::size_t size, ChannelMemory* block) {
  std::lock_guard<std::mutex> lock(free_blocks_mutex);
  auto it = free_blocks(pool).find(size);
  if (it == free_blocks(pool).end() || it->second.empty()) return false;
  *block = it->second.back();
  it->second.pop_back();
  return true;
}

void keep_free(bool pool, ChannelMemory memory) noexcept {
  if (memory.base == nullptr) return;
  discard_channel_memory(memory);  // nothing resident
  std::lock_guard<std::mutex> lock(free_blocks_mutex);
  try {
    free_blocks(pool)[memory.size].push_back(memory);
  } catch (const std::bad_alloc&) {
    // Not reusable then; the mapping stays (zero pages), as a view may still point at it.
  }
}

void* map_anonymous(std::size_t size) {
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw_errno("mmap(" + std::to_string(size) + " bytes)", errno);
  return base;
}
}  // namespace

std::size_t rounded_to_pages(std::size_t size) noexcept {
  auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (size + page - 1) / page * page;
}

ChannelMemory allocate_channel_memory(std::size_t size) {
  size = rounded_to_pages(size);
  ChannelMemory block;
  if (take_free(false, size, &block)) return block;
  return ChannelMemory{static_cast<uint8_t*>(map_anonymous(size)), size};
}

void free_channel_memory(ChannelMemory memory) noexcept {
  memory.control = nullptr;  // the block alone is kept: whatever held its header slots is not its
  keep_free(false, memory);
}

ChannelMemory allocate_pool_pages(std::size_t size) {
  size = (size + kHugePage - 1) / kHugePage * kHugePage;
  ChannelMemory block;
  if (take_free(true, size, &block)) return block;
  // Map a huge page more than asked for and cut the mapping down to an aligned run.
  std::size_t span = size + kHugePage;
  auto start = reinterpret_cast<uintptr_t>(map_anonymous(span));
  uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(reinterpret_cast<void*>(start), aligned - start);
  if (std::size_t tail = start + span - (aligned + size); tail > 0)
    munmap(reinterpret_cast<void*>(aligned + size), tail);
  madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // advice: small pages where refused
  return ChannelMemory{reinterpret_cast<uint8_t*>(aligned), size};
}

void free_pool_pages(ChannelMemory memory) noexcept {
  memory.size = (memory.size + kHugePage - 1) / kHugePage * kHugePage;  // as allocated
  keep_free(true, memory);
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

}  // namespace jrdma
