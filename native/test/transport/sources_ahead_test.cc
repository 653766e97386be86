// The slots and credits of sources sent ahead (transports/stream/sources_ahead.h), alone: a sender
// never has more ahead than the receiver holds, a READ is served only from bytes that all arrived
// and lie within one source, and every way a transfer ends gives its slot back.
#include "transports/stream/sources_ahead.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace jrdma::tcp {
namespace {

TEST(SourcesAhead, ASenderHasAsManyCreditsAsTheReceiverHasSlotsAndGetsOneBackPerRevokedSource) {
  SourcesAhead sender;
  EXPECT_TRUE(sender.send_ahead(11, 64 * 1024));
  EXPECT_TRUE(sender.send_ahead(12, 100));
  EXPECT_FALSE(sender.send_ahead(13, 100)) << "two slots, two credits";
  EXPECT_FALSE(sender.revoked(13)) << "13 did not go ahead: no credit back";
  EXPECT_TRUE(sender.revoked(11));
  EXPECT_FALSE(sender.revoked(11)) << "once";
  EXPECT_FALSE(sender.send_ahead(14, 64 * 1024 + 1)) << "longer than a slot";
  EXPECT_FALSE(sender.send_ahead(14, 0));
  EXPECT_TRUE(sender.send_ahead(14, 1));
  EXPECT_FALSE(sender.idle()) << "sources ahead wait for the peer's DONE";
  sender.revoked(12);
  sender.revoked(14);
  EXPECT_TRUE(sender.idle());
}

TEST(SourcesAhead, AReadIsServedOnlyFromBytesThatAllArrivedAndLieWithinTheSource) {
  SourcesAhead receiver;
  std::vector<uint8_t> source(10000);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i * 7);
  uint8_t* slot = receiver.hold(5, 0x1000, 10000);
  ASSERT_NE(nullptr, slot);
  std::vector<uint8_t> into(10000);
  EXPECT_FALSE(receiver.serve(5, 0x1000, 4096, into.data())) << "its bytes are not all in yet";
  std::memcpy(slot, source.data(), source.size());
  receiver.arrived();
  EXPECT_FALSE(receiver.serve(6, 0x1000, 4096, into.data())) << "another key";
  // Read in chunks, as the engine reads: each from its offset.
  EXPECT_TRUE(receiver.serve(5, 0x1000, 4096, into.data()));
  EXPECT_TRUE(receiver.serve(5, 0x1000 + 4096, 4096, into.data() + 4096));
  EXPECT_FALSE(receiver.idle()) << "bytes are left to read";
  EXPECT_TRUE(receiver.serve(5, 0x1000 + 8192, 10000 - 8192, into.data() + 8192));
  EXPECT_EQ(source, into);
  EXPECT_TRUE(receiver.idle()) << "every byte read: the slot is free";
  EXPECT_EQ(3u, receiver.served());
}

TEST(SourcesAhead, AReadBeyondTheSourceGivesItsSlotUpAndGoesToThePeer) {
  SourcesAhead receiver;
  ASSERT_NE(nullptr, receiver.hold(5, 0x1000, 100));
  receiver.arrived();
  std::vector<uint8_t> into(200);
  EXPECT_FALSE(receiver.serve(5, 0x1000 + 50, 51, into.data())) << "one byte past the end";
  EXPECT_TRUE(receiver.idle());
  ASSERT_NE(nullptr, receiver.hold(5, 0x1000, 100));
  receiver.arrived();
  EXPECT_FALSE(receiver.serve(5, 0xfff, 10, into.data())) << "before the start";
  EXPECT_TRUE(receiver.idle());
  ASSERT_NE(nullptr, receiver.hold(5, ~uint64_t{0} - 10, 100));  // an address near the end: no sum wraps
  receiver.arrived();
  EXPECT_FALSE(receiver.serve(5, ~uint64_t{0} - 5, 100, into.data()));
  EXPECT_EQ(0u, receiver.served());
}

TEST(SourcesAhead, AReceiverHoldsNoMoreThanItsSlotsAndAForgottenSourceFreesItsSlot) {
  SourcesAhead receiver;
  ASSERT_NE(nullptr, receiver.hold(1, 0x1000, 64 * 1024));
  receiver.arrived();
  ASSERT_NE(nullptr, receiver.hold(2, 0x2000, 1));
  receiver.arrived();
  EXPECT_EQ(nullptr, receiver.hold(3, 0x3000, 1)) << "a third while two are held: beyond the peer's credits";
  EXPECT_EQ(nullptr, SourcesAhead().hold(3, 0x3000, 64 * 1024 + 1)) << "longer than a slot";
  EXPECT_EQ(nullptr, SourcesAhead().hold(3, 0x3000, 0));
  receiver.forget(1);  // the engine refused the transfer (a receive too small, no buffer)
  EXPECT_NE(nullptr, receiver.hold(3, 0x3000, 1));
  receiver.arrived();
  receiver.forget(2);
  receiver.forget(3);
  EXPECT_TRUE(receiver.idle());
}

}  // namespace
}  // namespace jrdma::tcp
