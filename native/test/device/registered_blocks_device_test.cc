// VerbsChannelEntry memory kept registered for reuse (transports/verbs/registered_blocks.h), on a real device in the VM.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "transports/verbs/registered_blocks.h"
#include "transports/verbs/registered_slices.h"
#include "transports/verbs/verbs_context.h"

namespace {

jrdma::ContextOptions rxe0() {
  jrdma::ContextOptions options;
  options.device_name = "rxe0";
  return options;
}

TEST(RegisteredBlocks, AGivenBackBlockIsReusedWithoutRegisteringAgainUpToTheBound) {
  jrdma::VerbsContext context(rxe0());
  jrdma::RegisteredBlocks blocks(context.pd(), 1);
  jrdma::RegisteredBlock first = blocks.take(100000, 0);
  ASSERT_NE(nullptr, first.memory.base);
  EXPECT_EQ(0u, first.memory.size % 4096) << "page-rounded";
  EXPECT_GE(first.memory.size, 100000u);
  uint8_t* address = first.memory.base;
  uint32_t lkey = first.region->lkey();
  first.memory.base[first.memory.size - 1] = 7;  // writable
  blocks.give_back(std::move(first));
  jrdma::RegisteredBlock again = blocks.take(100000, 0);
  EXPECT_EQ(address, again.memory.base) << "the kept block comes back";
  EXPECT_EQ(lkey, again.region->lkey()) << "with its registration: no ibv_reg_mr";
  jrdma::RegisteredBlock other = blocks.take(100000, 0);
  EXPECT_NE(address, other.memory.base);
  blocks.give_back(std::move(again));
  blocks.give_back(std::move(other));  // over the bound of 1: deregistered and released
  jrdma::RegisteredBlock kept = blocks.take(100000, 0);
  EXPECT_EQ(address, kept.memory.base);
  blocks.give_back(std::move(kept));
  blocks.release();  // everything deregistered before the PD goes (the context's close checks EBUSY)
  EXPECT_EQ("", context.close());
}

// Channels over a shared receive queue: header slots and results are slices of slabs registered for many
// channels; the slabs grow with the slices in use and go when their slices are back (one empty one stays).
TEST(RegisteredSlices, SlicesShareRegistrationsSlabsGrowWithUseAndGoWhenEmpty) {
  jrdma::VerbsContext context(rxe0());
  jrdma::RegisteredSlices slices(context.pd());
  std::vector<jrdma::RegisteredSlice> taken;
  std::set<uint32_t> keys;
  for (int i = 0; i < 100; ++i) {
    taken.push_back(slices.take(9000));
    ASSERT_NE(nullptr, taken.back().address);
    EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(taken.back().address) % 64) << "cache-line aligned";
    taken.back().address[8999] = static_cast<uint8_t>(i);  // writable, and no slice overlaps another
    keys.insert(taken.back().lkey);
  }
  for (int i = 0; i < 100; ++i) EXPECT_EQ(static_cast<uint8_t>(i), taken[i].address[8999]);
  // 4, then as many as are in use: 4, 4, 8, 16, 32, 64 — six registrations for 100 channels, not 100.
  EXPECT_EQ(6u, slices.slabs());
  EXPECT_EQ(6u, keys.size());
  for (const auto& slice : taken) slices.give_back(slice);
  EXPECT_EQ(1u, slices.slabs()) << "empty slabs go, but one";
  jrdma::RegisteredSlice again = slices.take(9000);
  EXPECT_EQ(1u, slices.slabs()) << "the kept slab serves the next channel: no registration";
  slices.give_back(again);
  slices.release();
  slices.give_back(again);  // after the release: ignored
  EXPECT_EQ("", context.close());
}

TEST(RegisteredBlocks, AChannelOverASharedQueueGetsAPlainRingAndARegisteredSlice) {
  jrdma::VerbsContext context(rxe0());
  jrdma::RegisteredBlocks blocks(context.pd(), 4);
  jrdma::RegisteredBlock block = blocks.take(131072 + 9000, 131072);
  ASSERT_NE(nullptr, block.memory.base);
  EXPECT_EQ(nullptr, block.region) << "the ring is not registered";
  EXPECT_GE(block.memory.size, 131072u);
  ASSERT_NE(nullptr, block.memory.control);
  EXPECT_EQ(block.slice.address, block.memory.control);
  EXPECT_EQ(block.slice.lkey, block.lkey());
  block.memory.control[8999] = 1;
  blocks.give_back(std::move(block));
  blocks.release();
  EXPECT_EQ("", context.close());
}

}  // namespace
