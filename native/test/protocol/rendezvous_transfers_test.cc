// The rendezvous transfers alone (protocol/rendezvous_transfers.h), without a channel: which READs
// they issue and when, what they answer the peer, what they ask Java, what they refuse;
// rendezvous_test.cc runs them between two engines.
#include "protocol/rendezvous_transfers.h"

#include <gtest/gtest.h>

#include <vector>

#include "base/error.h"

namespace jrdma {
namespace {

// Records what the transfers ask of their channel, as the engine would carry it.
struct RecordingPort : RendezvousPort {
  struct Ended {
    uint64_t id;
    int64_t value;  // the length (incoming) or the status (outgoing)
    int64_t detail;
    bool delivered;
  };
  std::vector<TransferRead> reads;
  std::vector<wire::RendezvousDone> answers;
  std::vector<std::pair<uint64_t, uint64_t>> buffers_asked;
  std::vector<Ended> incoming;
  std::vector<Ended> outgoing;
  std::vector<uint64_t> revoked;
  std::size_t free_slots = 1000;

  bool chain_read(const TransferRead& read) override {
    if (free_slots == 0) return false;
    --free_slots;
    reads.push_back(read);
    return true;
  }
  void answer_peer(const wire::RendezvousDone& done) override { answers.push_back(done); }
  void needs_buffer(uint64_t id, uint64_t length) override { buffers_asked.emplace_back(id, length); }
  void incoming_ended(uint64_t id, uint64_t length, bool delivered) override {
    incoming.push_back({id, static_cast<int64_t>(length), 0, delivered});
  }
  void outgoing_ended(uint64_t ticket, int32_t status, int64_t detail) override {
    outgoing.push_back({ticket, status, detail, true});
  }
  void revoke(uint64_t exposure) override { revoked.push_back(exposure); }
  void forgo_read(uint32_t rkey) override { forgone.push_back(rkey); }
  std::vector<uint32_t> forgone;
};

constexpr uint64_t kMaxMessage = 1u << 30;

std::vector<uint8_t> start_payload(uint64_t address, uint32_t rkey, uint64_t length) {
  std::vector<uint8_t> payload(wire::kControlPayloadSize);
  wire::encode_start(wire::RendezvousStart{address, rkey, length}, payload.data());
  return payload;
}

std::vector<uint8_t> done_payload(uint64_t id, wire::RendezvousStatus status, uint64_t detail) {
  std::vector<uint8_t> payload(wire::kControlPayloadSize);
  wire::encode_done(wire::RendezvousDone{id, status, detail}, payload.data());
  return payload;
}

// Checks a START and takes it as the engine does.
std::optional<TransferViolation> start(RendezvousTransfers& transfers, uint64_t id, uint64_t length,
                                       const PostedReceive* into = nullptr) {
  wire::RendezvousStart s;
  std::vector<uint8_t> payload = start_payload(0x10000, 77, length);
  std::optional<TransferViolation> violation = transfers.check_start(payload.data(), kMaxMessage, &s);
  if (!violation) transfers.receive(id, s, into);
  return violation;
}

TEST(RendezvousTransfers, AMessageIntoAPostedReceiveIsReadInChunksNoMoreOutstandingThanAllowed) {
  RecordingPort port;
  RendezvousTransfers transfers(1, {8, 1000, 2, nullptr}, port);
  PostedReceive into{5, 0x900000, 4096, 33};
  ASSERT_FALSE(start(transfers, 7, 2500, &into));
  EXPECT_TRUE(port.buffers_asked.empty());  // the application's receive is the destination
  transfers.pump();
  ASSERT_EQ(2u, port.reads.size());  // max_reads
  EXPECT_EQ(0x900000u, port.reads[0].local_address);
  EXPECT_EQ(0x10000u, port.reads[0].remote_address);
  EXPECT_EQ(77u, port.reads[0].rkey);
  EXPECT_EQ(33u, port.reads[0].lkey);
  EXPECT_EQ(1000u, port.reads[0].length);
  EXPECT_EQ(0x900000u + 1000, port.reads[1].local_address);
  transfers.read_done(7);
  transfers.pump();
  ASSERT_EQ(3u, port.reads.size());
  EXPECT_EQ(500u, port.reads[2].length);  // the last chunk is what is left
  transfers.read_done(7);
  EXPECT_TRUE(port.answers.empty());  // one READ still outstanding
  transfers.read_done(7);
  ASSERT_EQ(1u, port.answers.size());
  EXPECT_EQ(wire::RendezvousStatus::kDone, port.answers[0].status);
  EXPECT_EQ(7u, port.answers[0].id);
  ASSERT_EQ(1u, port.incoming.size());
  EXPECT_TRUE(port.incoming[0].delivered);
  EXPECT_EQ(2500, port.incoming[0].value);
  EXPECT_EQ(0u, transfers.receiving());
}

TEST(RendezvousTransfers, WithoutASendSlotTheReadsWaitForTheNextPump) {
  RecordingPort port;
  port.free_slots = 0;
  RendezvousTransfers transfers(1, {8, 1000, 16, nullptr}, port);
  PostedReceive into{5, 0x900000, 4096, 33};
  ASSERT_FALSE(start(transfers, 7, 1500, &into));
  transfers.pump();
  EXPECT_TRUE(port.reads.empty());
  port.free_slots = 1;
  transfers.pump();
  ASSERT_EQ(1u, port.reads.size());
  port.free_slots = 5;
  transfers.pump();
  ASSERT_EQ(2u, port.reads.size());  // the second and last chunk, not the first again
  EXPECT_EQ(0x900000u + 1000, port.reads[1].local_address);
  EXPECT_EQ(500u, port.reads[1].length);
}

TEST(RendezvousTransfers, JavaIsAskedForABufferOnlyOnceTheBudgetAdmitsTheTransferInArrivalOrder) {
  RecordingPort port;
  ReceiveBudget budget(3000);
  RendezvousTransfers transfers(4, {8, 1 << 20, 16, &budget}, port);
  ASSERT_FALSE(start(transfers, 1, 2000));
  ASSERT_FALSE(start(transfers, 2, 2000));  // does not fit beside the first
  ASSERT_FALSE(start(transfers, 3, 500));   // would fit, but waits behind the second
  ASSERT_EQ(1u, port.buffers_asked.size());
  EXPECT_EQ(std::make_pair(uint64_t{1}, uint64_t{2000}), port.buffers_asked[0]);
  transfers.buffer_given(1, 0x5000, 9, 2000, 0);
  transfers.pump();
  transfers.read_done(1);
  EXPECT_EQ(0u, budget.in_use());  // given back before the port heard of the end
  transfers.admit_waiting();
  ASSERT_EQ(3u, port.buffers_asked.size());
  EXPECT_EQ(2u, port.buffers_asked[1].first);
  EXPECT_EQ(3u, port.buffers_asked[2].first);
  EXPECT_EQ(2500u, budget.in_use());
}

TEST(RendezvousTransfers, ABufferJavaCouldNotAllocateRefusesTheTransferToThePeerWithTheReason) {
  RecordingPort port;
  ReceiveBudget budget(1 << 20);
  RendezvousTransfers transfers(1, {8, 1 << 20, 16, &budget}, port);
  ASSERT_FALSE(start(transfers, 9, 4096));
  transfers.buffer_given(9, 0, 0, 0, 12);
  ASSERT_EQ(1u, port.answers.size());
  EXPECT_EQ(wire::RendezvousStatus::kReceiverFailed, port.answers[0].status);
  EXPECT_EQ(12u, port.answers[0].detail);
  ASSERT_EQ(1u, port.forgone.size()) << "a transport holding the source's bytes already lets them go";
  EXPECT_EQ(77u, port.forgone[0]);
  ASSERT_EQ(1u, port.incoming.size());
  EXPECT_FALSE(port.incoming[0].delivered);
  EXPECT_EQ(0u, budget.in_use());
  EXPECT_TRUE(port.reads.empty());
}

TEST(RendezvousTransfers, ABufferForNoWaitingTransferOrTooSmallIsRefusedAndChangesNothing) {
  RecordingPort port;
  RendezvousTransfers transfers(1, {8, 1 << 20, 16, nullptr}, port);
  EXPECT_THROW(transfers.buffer_given(3, 0x1000, 1, 4096, 0), RdmaError);  // no such transfer
  ASSERT_FALSE(start(transfers, 3, 4096));
  EXPECT_THROW(transfers.buffer_given(3, 0x1000, 1, 4095, 0), RdmaError);
  transfers.pump();
  EXPECT_TRUE(port.reads.empty());  // still waiting for a buffer
  transfers.buffer_given(3, 0x1000, 1, 4096, 0);
  EXPECT_THROW(transfers.buffer_given(3, 0x2000, 1, 4096, 0), RdmaError);  // given already
  transfers.pump();
  ASSERT_EQ(1u, port.reads.size());
  EXPECT_EQ(0x1000u, port.reads[0].local_address);
}

TEST(RendezvousTransfers, StartsBeyondWhatWeAnnouncedAreViolationsBeforeAnythingIsReserved) {
  RecordingPort port;
  ReceiveBudget budget(1 << 20);
  RendezvousTransfers transfers(1, {2, 1 << 20, 16, &budget}, port);
  wire::RendezvousStart s;
  std::vector<uint8_t> too_long = start_payload(0, 1, kMaxMessage + 1);
  auto violation = transfers.check_start(too_long.data(), kMaxMessage, &s);
  ASSERT_TRUE(violation);
  EXPECT_EQ(ProtocolViolation::kTransferTooLong, violation->violation);
  EXPECT_EQ(static_cast<int64_t>(kMaxMessage + 1), violation->detail);
  std::vector<uint8_t> empty = start_payload(0, 1, 0);
  EXPECT_EQ(ProtocolViolation::kTransferTooLong, transfers.check_start(empty.data(), kMaxMessage, &s)->violation);
  std::vector<uint8_t> garbage(wire::kControlPayloadSize, 0xff);
  EXPECT_EQ(ProtocolViolation::kBadControlMessage, transfers.check_start(garbage.data(), kMaxMessage, &s)->violation);
  ASSERT_FALSE(start(transfers, 1, 100));
  ASSERT_FALSE(start(transfers, 2, 100));
  auto third = start(transfers, 3, 100);  // two announced
  ASSERT_TRUE(third);
  EXPECT_EQ(ProtocolViolation::kTooManyTransfers, third->violation);
  EXPECT_EQ(2u, transfers.receiving());
  EXPECT_EQ(200u, budget.in_use());
}

TEST(RendezvousTransfers, ThePeersAnswerRevokesTheSourceAndReportsTheSendWithItsStatus) {
  RecordingPort port;
  RendezvousTransfers transfers(1, {8, 1 << 20, 16, nullptr}, port);
  transfers.started(10, 100, 0xa);
  transfers.started(11, 101, 0xb);
  transfers.started(12, 102, 0xc);
  EXPECT_EQ(3u, transfers.sending());
  EXPECT_FALSE(transfers.answered(done_payload(11, wire::RendezvousStatus::kBufferTooSmall, 64).data()));
  EXPECT_FALSE(transfers.answered(done_payload(10, wire::RendezvousStatus::kDone, 0).data()));
  EXPECT_FALSE(transfers.answered(done_payload(12, wire::RendezvousStatus::kReceiverFailed, 12).data()));
  EXPECT_EQ((std::vector<uint64_t>{0xb, 0xa, 0xc}), port.revoked);
  ASSERT_EQ(3u, port.outgoing.size());
  EXPECT_EQ(101u, port.outgoing[0].id);
  EXPECT_EQ(static_cast<int32_t>(OpStatus::kPeerBufferTooSmall), port.outgoing[0].value);
  EXPECT_EQ(64, port.outgoing[0].detail);
  EXPECT_EQ(0, port.outgoing[1].value);
  EXPECT_EQ(static_cast<int32_t>(OpStatus::kPeerCouldNotReceive), port.outgoing[2].value);
  EXPECT_EQ(0u, transfers.sending());
}

TEST(RendezvousTransfers, AnAnswerToNoSendOfOursOrAMalformedOneIsAViolation) {
  RecordingPort port;
  RendezvousTransfers transfers(1, {8, 1 << 20, 16, nullptr}, port);
  transfers.started(10, 100, 0xa);
  EXPECT_EQ(ProtocolViolation::kUnknownTransfer,
            transfers.answered(done_payload(11, wire::RendezvousStatus::kDone, 0).data())->violation);
  std::vector<uint8_t> garbage(wire::kControlPayloadSize, 0xff);
  EXPECT_EQ(ProtocolViolation::kBadControlMessage, transfers.answered(garbage.data())->violation);
  EXPECT_TRUE(port.revoked.empty());
  EXPECT_TRUE(port.outgoing.empty());
  EXPECT_EQ(1u, transfers.sending());
}

TEST(RendezvousTransfers, ClearingRevokesEverySourceAndGivesTheBudgetBackReportingNothing) {
  RecordingPort port;
  ReceiveBudget budget(1 << 20);
  RendezvousTransfers transfers(1, {8, 1000, 16, &budget}, port);
  transfers.started(10, 100, 0xa);
  PostedReceive into{5, 0x900000, 4096, 33};
  ASSERT_FALSE(start(transfers, 1, 3000, &into));
  ASSERT_FALSE(start(transfers, 2, 5000));
  transfers.pump();
  EXPECT_EQ(8000u, budget.in_use());
  transfers.clear();
  EXPECT_EQ(0u, budget.in_use());
  EXPECT_EQ(std::vector<uint64_t>{0xa}, port.revoked);
  EXPECT_TRUE(port.incoming.empty());
  EXPECT_TRUE(port.outgoing.empty());
  EXPECT_EQ(0u, transfers.sending());
  EXPECT_EQ(0u, transfers.receiving());
  // READs issued before the close complete late (flushed): nothing of them is counted any more.
  transfers.read_done(1);
  transfers.pump();
  EXPECT_EQ(3u, port.reads.size());
}

}  // namespace
}  // namespace jrdma
