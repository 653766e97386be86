// Channel memory and the buffer pool's pages (context/channel_memory.h): aligned, given back without
// being unmapped, reused by size, and pool pages kept apart from channel blocks.
#include "context/channel_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace jrdma {
namespace {

constexpr std::size_t kHugePage = 2u << 20;

TEST(PoolPages, AreAlignedToHugePagesAndReadZerosAfterTheyWentBack) {
  ChannelMemory pages = allocate_pool_pages(kHugePage);
  ASSERT_NE(nullptr, pages.base);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(pages.base) % kHugePage);
  EXPECT_EQ(kHugePage, pages.size);
  std::memset(pages.base, 0x5a, pages.size);
  EXPECT_EQ(kHugePage, resident_channel_memory(pages));
  free_pool_pages(pages);
  EXPECT_EQ(0u, resident_channel_memory(pages));
  // Still mapped (a view Java kept may read it): zeros, nothing resident.
  EXPECT_EQ(0, pages.base[0]);
  EXPECT_EQ(0, pages.base[kHugePage - 1]);
  ChannelMemory again = allocate_pool_pages(kHugePage);
  EXPECT_EQ(pages.base, again.base) << "the addresses are reused";
  free_pool_pages(again);
}

TEST(PoolPages, RoundToWholeHugePagesAndStayApartFromChannelBlocks) {
  ChannelMemory pages = allocate_pool_pages(kHugePage + 4096);
  EXPECT_EQ(2 * kHugePage, pages.size);
  free_pool_pages(ChannelMemory{pages.base, kHugePage + 4096});  // the size asked for: found as allocated
  ChannelMemory channel = allocate_channel_memory(2 * kHugePage);
  EXPECT_NE(pages.base, channel.base) << "a channel block never comes from the pool's pages";
  ChannelMemory pool = allocate_pool_pages(2 * kHugePage);
  EXPECT_EQ(pages.base, pool.base);
  free_channel_memory(channel);
  free_pool_pages(pool);
}

TEST(ChannelMemory, IsGivenBackAndReusedBySize) {
  ChannelMemory block = allocate_channel_memory(10000);
  EXPECT_EQ(rounded_to_pages(10000), block.size);
  block.base[0] = 1;
  free_channel_memory(block);
  EXPECT_EQ(0u, resident_channel_memory(block));  // (before the read below maps the zero page)
  EXPECT_EQ(0, block.base[0]);
  ChannelMemory again = allocate_channel_memory(10000);
  EXPECT_EQ(block.base, again.base);
  free_channel_memory(again);
}

}  // namespace
}  // namespace jrdma
