// VerbsChannelEntry memory kept registered for reuse (transports/verbs/registered_blocks.h), on a real device in the VM.
#include <gtest/gtest.h>

#include "transports/verbs/registered_blocks.h"
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

}  // namespace
