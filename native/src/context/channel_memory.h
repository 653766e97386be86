// A channel's own memory (receive ring, header slots, atomic results: ChannelMemoryLayout) as
// page-aligned anonymous mappings, and the Java buffer pool's slabs alike. Java reads received
// messages through direct ByteBuffers over the ring, and a buffer a careless application kept must never point at unmapped memory, so a
// block is never unmapped: a freed block's pages are given back to the kernel (MADV_DONTNEED: it
// reads as zeros and costs no memory) and the block is reused by the next channel of that size.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/transport.h"

namespace jrdma {

// size rounded up to whole pages: the size a block of at least `size` bytes has.
std::size_t rounded_to_pages(std::size_t size) noexcept;
// Throws RdmaError (kNative, ENOMEM) when no memory can be mapped.
ChannelMemory allocate_channel_memory(std::size_t size);
// Gives the block's memory back and keeps its addresses for reuse. The block must not be
// registered any more.
void free_channel_memory(ChannelMemory memory) noexcept;
// The same for the Java buffer pool's slabs (NativeContext.allocatePages0): whole 2 MiB pages, aligned
// and advised as transparent huge pages, so a slab costs one page fault and one device translation
// entry where the kernel has huge pages to give (a fresh slab was 512 faults: a burst that grew the
// pool by 250 MiB ran at a third of the rate of one that found it grown). Kept apart from channel
// blocks, whose pages must stay small (an idle channel touches a few).
ChannelMemory allocate_pool_pages(std::size_t size);
void free_pool_pages(ChannelMemory memory) noexcept;
// Gives the block's pages back to the system and keeps the block: they read as zeros from now on,
// and cost memory again once touched. Never for registered memory.
void discard_channel_memory(ChannelMemory memory) noexcept;
// Bytes of the block that are resident (mincore(2)); diagnostics and tests.
std::size_t resident_channel_memory(ChannelMemory memory) noexcept;

// A block owned by one channel, freed (as above: never unmapped) when the owner goes — where no
// registration is involved (the TCP and shared-memory transports).
class OwnedChannelMemory {
 public:
  explicit OwnedChannelMemory(std::size_t size) : block_(allocate_channel_memory(size)), size_(size) {}
  ~OwnedChannelMemory() { free_channel_memory(block_); }
  OwnedChannelMemory(const OwnedChannelMemory&) = delete;
  OwnedChannelMemory& operator=(const OwnedChannelMemory&) = delete;
  uint8_t* data() const noexcept { return block_.base; }
  std::size_t size() const noexcept { return size_; }  // as asked for (the block is whole pages)
  void discard() noexcept { discard_channel_memory(block_); }
  std::size_t resident() const noexcept { return resident_channel_memory(block_); }

 private:
  ChannelMemory block_;
  std::size_t size_;
};

}  // namespace jrdma
