#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "wire/control_message.h"
#include "wire/handshake.h"
#include "wire/message_header.h"

using namespace jrdma::wire;

namespace {

std::vector<uint8_t> message(MessageType type, uint16_t credits, uint32_t length, uint64_t id) {
  std::vector<uint8_t> bytes(kHeaderSize + length, 0xAB);
  MessageHeader h;
  h.type = type;
  h.credits = credits;
  h.length = length;
  h.id = id;
  encode_header(h, bytes.data());
  return bytes;
}

}  // namespace

TEST(MessageHeader, RoundTripsLittleEndian) {
  auto bytes = message(MessageType::kData, 0x0102, 3, 0x1122334455667788ULL);
  EXPECT_EQ(1, bytes[0]);
  EXPECT_EQ(0, bytes[1]);
  EXPECT_EQ(0x02, bytes[2]);
  EXPECT_EQ(0x01, bytes[3]);
  EXPECT_EQ(3, bytes[4]);
  EXPECT_EQ(0x88, bytes[8]);
  MessageHeader h;
  ASSERT_EQ(DecodeStatus::kOk, decode_header(bytes.data(), bytes.size(), 4096, 0x0102, &h));
  EXPECT_EQ(MessageType::kData, h.type);
  EXPECT_EQ(0x0102, h.credits);
  EXPECT_EQ(3u, h.length);
  EXPECT_EQ(0x1122334455667788ULL, h.id);
}

TEST(MessageHeader, RejectsEveryMalformedField) {
  MessageHeader h;
  auto ok = message(MessageType::kData, 1, 10, 7);
  EXPECT_EQ(DecodeStatus::kTooShort, decode_header(ok.data(), 15, 4096, 8, &h));
  EXPECT_EQ(DecodeStatus::kTooShort, decode_header(ok.data(), ok.size(), 8, 8, &h));
  auto bad_type = ok;
  bad_type[0] = 10;
  EXPECT_EQ(DecodeStatus::kUnknownType, decode_header(bad_type.data(), bad_type.size(), 4096, 8, &h));
  auto bad_flags = ok;
  bad_flags[1] = 1;
  EXPECT_EQ(DecodeStatus::kReservedFlags, decode_header(bad_flags.data(), bad_flags.size(), 4096, 8, &h));
  EXPECT_EQ(DecodeStatus::kLengthMismatch, decode_header(ok.data(), ok.size() - 1, 4096, 8, &h));
  auto huge = message(MessageType::kData, 0, 0, 0);
  huge[4] = 0xff;
  huge[5] = 0xff;
  huge[6] = 0xff;
  huge[7] = 0x7f;
  EXPECT_EQ(DecodeStatus::kTooLong, decode_header(huge.data(), huge.size(), 4096, 8, &h));
  auto greedy = message(MessageType::kData, 9, 0, 0);
  EXPECT_EQ(DecodeStatus::kCreditsTooMany, decode_header(greedy.data(), greedy.size(), 4096, 8, &h));
  auto credit = message(MessageType::kCredit, 1, 4, 0);
  EXPECT_EQ(DecodeStatus::kCreditWithPayload, decode_header(credit.data(), credit.size(), 4096, 8, &h));
}

TEST(MessageHeader, RandomBytesNeverDecodeOutOfBounds) {
  std::mt19937 random(42);
  std::vector<uint8_t> buffer(64);
  MessageHeader h;
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    for (auto& b : buffer) b = static_cast<uint8_t>(random());
    if (i % 3 == 0) {
      buffer[0] = static_cast<uint8_t>(1 + (i % 2));
      buffer[1] = 0;
    }
    std::size_t received = random() % (buffer.size() + 1);
    if (decode_header(buffer.data(), received, buffer.size(), 64, &h) == DecodeStatus::kOk) {
      ++accepted;
      ASSERT_EQ(received, kHeaderSize + h.length);  // an accepted length always matches what arrived
      ASSERT_LE(h.credits, 64);
    }
  }
  SUCCEED() << accepted << " random messages were well-formed";
}

static Handshake valid_handshake() {
  Handshake h;
  h.credits = 128;
  h.eager = 4096;
  h.max_message = 1u << 30;
  h.rendezvous = 8;
  return h;
}

TEST(Handshake, RoundTrips) {
  Handshake out = valid_handshake();
  out.mtu = 1024;
  uint8_t bytes[kHandshakeSize];
  encode_handshake(out, bytes);
  Handshake in;
  ASSERT_EQ(RejectReason::kNone, decode_handshake(bytes, sizeof bytes, &in));
  EXPECT_EQ(128u, in.credits);
  EXPECT_EQ(4096u, in.eager);
  EXPECT_EQ(1u << 30, in.max_message);
  EXPECT_EQ(1024u, in.mtu);
  EXPECT_EQ(8u, in.rendezvous);
  // rdma_cm pads private data: longer is fine.
  uint8_t padded[56] = {};
  std::memcpy(padded, bytes, sizeof bytes);
  EXPECT_EQ(RejectReason::kNone, decode_handshake(padded, sizeof padded, &in));
}

TEST(Handshake, RejectsAVersionOnePeerAsAVersionMismatch) {
  // Version 1 sent 24 bytes (no rendezvous field), padded by rdma_cm or not.
  Handshake old = valid_handshake();
  old.version = 1;
  old.max_message = 4080;
  uint8_t bytes[kHandshakeSize];
  encode_handshake(old, bytes);
  Handshake in;
  EXPECT_EQ(RejectReason::kVersionMismatch, decode_handshake(bytes, 24, &in));
  EXPECT_EQ(1, in.version);
  uint8_t padded[56] = {};
  std::memcpy(padded, bytes, 24);
  EXPECT_EQ(RejectReason::kVersionMismatch, decode_handshake(padded, sizeof padded, &in));
}

TEST(Handshake, RejectsMalformedAndOutOfRangeFields) {
  Handshake h = valid_handshake();
  uint8_t bytes[kHandshakeSize];
  Handshake in;
  encode_handshake(h, bytes);
  EXPECT_EQ(RejectReason::kMalformed, decode_handshake(nullptr, 0, &in));
  EXPECT_EQ(RejectReason::kMalformed, decode_handshake(bytes, 4, &in));
  bytes[0] ^= 1;
  EXPECT_EQ(RejectReason::kMalformed, decode_handshake(bytes, sizeof bytes, &in));
  Handshake v7 = h;
  v7.version = 7;
  encode_handshake(v7, bytes);
  EXPECT_EQ(RejectReason::kVersionMismatch, decode_handshake(bytes, sizeof bytes, &in));
  EXPECT_EQ(7, in.version);
  Handshake v5 = h;  // version 5 had the same 32 bytes, but no SOURCE AHEAD frames over TCP
  v5.version = 5;
  encode_handshake(v5, bytes);
  EXPECT_EQ(RejectReason::kVersionMismatch, decode_handshake(bytes, sizeof bytes, &in));
  Handshake v4 = h;  // version 4 had the same 32 bytes, but no AUTH confirmation and no ring handover
  v4.version = 4;
  encode_handshake(v4, bytes);
  EXPECT_EQ(RejectReason::kVersionMismatch, decode_handshake(bytes, sizeof bytes, &in));
  Handshake v3 = h;  // version 3 had the same 32 bytes, but no agent, AUTH or connect data
  v3.version = 3;
  encode_handshake(v3, bytes);
  EXPECT_EQ(RejectReason::kVersionMismatch, decode_handshake(bytes, sizeof bytes, &in));
  Handshake authenticating = h;
  authenticating.flags = kFlagAuthenticate;
  encode_handshake(authenticating, bytes);
  ASSERT_EQ(RejectReason::kNone, decode_handshake(bytes, sizeof bytes, &in));
  EXPECT_EQ(kFlagAuthenticate, in.flags);
  Handshake sharing = h;
  sharing.flags = kFlagSharedMemory;
  encode_handshake(sharing, bytes);
  ASSERT_EQ(RejectReason::kNone, decode_handshake(bytes, sizeof bytes, &in));
  EXPECT_EQ(kFlagSharedMemory, in.flags);
  Handshake unknown_flag = h;
  unknown_flag.flags = 4;
  encode_handshake(unknown_flag, bytes);
  EXPECT_EQ(RejectReason::kMalformed, decode_handshake(bytes, sizeof bytes, &in));
  auto rejects = [&](Handshake bad, RejectReason reason) {
    encode_handshake(bad, bytes);
    EXPECT_EQ(reason, decode_handshake(bytes, sizeof bytes, &in));
  };
  Handshake no_credits = h;
  no_credits.credits = 0;
  rejects(no_credits, RejectReason::kBadCredits);
  Handshake tiny = h;
  tiny.eager = 8;
  rejects(tiny, RejectReason::kEagerMismatch);
  Handshake below_eager = h;
  below_eager.max_message = 4079;  // smaller than what fits a receive buffer
  rejects(below_eager, RejectReason::kMalformed);
  Handshake beyond_int = h;
  beyond_int.max_message = 0x80000000u;
  rejects(beyond_int, RejectReason::kMalformed);
  Handshake no_rendezvous = h;
  no_rendezvous.rendezvous = 0;
  rejects(no_rendezvous, RejectReason::kMalformed);
  Handshake many_rendezvous = h;
  many_rendezvous.rendezvous = kMaxRendezvous + 1;
  rejects(many_rendezvous, RejectReason::kMalformed);
  Handshake odd_mtu = h;
  odd_mtu.mtu = 1500;  // not a verbs MTU
  rejects(odd_mtu, RejectReason::kMalformed);
  Handshake hasty = h;
  hasty.keepalive = kMinKeepalive - 1;  // a bound that would close live channels
  rejects(hasty, RejectReason::kMalformed);
  Handshake endless = h;
  endless.keepalive = kMaxKeepalive + 1;
  rejects(endless, RejectReason::kMalformed);
}

TEST(Handshake, RejectsAVersionTwoPeerAndCarriesTheKeepalive) {
  Handshake h = valid_handshake();
  h.keepalive = 30000;
  uint8_t bytes[kHandshakeSize];
  encode_handshake(h, bytes);
  Handshake in;
  ASSERT_EQ(RejectReason::kNone, decode_handshake(bytes, sizeof bytes, &in));
  EXPECT_EQ(30000u, in.keepalive);
  Handshake old = h;
  old.version = 2;  // version 2 sent 28 bytes
  encode_handshake(old, bytes);
  EXPECT_EQ(RejectReason::kVersionMismatch, decode_handshake(bytes, 28, &in));
  EXPECT_EQ(2, in.version);
}

TEST(ControlMessage, RendezvousStartAndDoneRoundTripAndRejectReservedBits) {
  uint8_t bytes[kControlPayloadSize];
  RendezvousStart start{0x1122334455667788ULL, 0xabcdef01u, 1ull << 40};
  encode_start(start, bytes);
  RendezvousStart s;
  ASSERT_TRUE(decode_start(bytes, &s));
  EXPECT_EQ(start.address, s.address);
  EXPECT_EQ(start.rkey, s.rkey);
  EXPECT_EQ(1ull << 40, s.length);
  bytes[12] = 1;
  EXPECT_FALSE(decode_start(bytes, &s));
  RendezvousDone done{42, RendezvousStatus::kBufferTooSmall, 4096};
  encode_done(done, bytes);
  RendezvousDone d;
  ASSERT_TRUE(decode_done(bytes, &d));
  EXPECT_EQ(42u, d.id);
  EXPECT_EQ(RendezvousStatus::kBufferTooSmall, d.status);
  EXPECT_EQ(4096u, d.detail);
  bytes[8] = 7;  // unknown status
  EXPECT_FALSE(decode_done(bytes, &d));
}

TEST(MessageHeader, ControlMessagesCarryExactlyTheirPayload) {
  MessageHeader h;
  auto start = message(MessageType::kRendezvousStart, 0, kControlPayloadSize, 3);
  EXPECT_EQ(DecodeStatus::kOk, decode_header(start.data(), start.size(), 4096, 8, &h));
  auto long_start = message(MessageType::kRendezvousStart, 0, kControlPayloadSize + 1, 3);
  EXPECT_EQ(DecodeStatus::kControlLength, decode_header(long_start.data(), long_start.size(), 4096, 8, &h));
  auto short_done = message(MessageType::kRendezvousDone, 0, 8, 3);
  EXPECT_EQ(DecodeStatus::kControlLength, decode_header(short_done.data(), short_done.size(), 4096, 8, &h));
}

TEST(Reject, RoundTripsAndIgnoresForeignData) {
  uint8_t bytes[kRejectSize];
  encode_reject(RejectReason::kVersionMismatch, 1, bytes);
  RejectReason reason;
  uint32_t detail;
  ASSERT_TRUE(decode_reject(bytes, sizeof bytes, &reason, &detail));
  EXPECT_EQ(RejectReason::kVersionMismatch, reason);
  EXPECT_EQ(1u, detail);
  EXPECT_FALSE(decode_reject(bytes, 4, &reason, &detail));
  uint8_t foreign[kRejectSize] = {1, 2, 3};
  EXPECT_FALSE(decode_reject(foreign, sizeof foreign, &reason, &detail));
  encode_reject(RejectReason::kNoSharedMemory, 1, bytes);  // the highest reason decodes
  ASSERT_TRUE(decode_reject(bytes, sizeof bytes, &reason, &detail));
  EXPECT_EQ(RejectReason::kNoSharedMemory, reason);
  EXPECT_EQ(1u, detail);
  encode_reject(static_cast<RejectReason>(14), 0, bytes);
  EXPECT_FALSE(decode_reject(bytes, sizeof bytes, &reason, &detail));
  encode_reject(static_cast<RejectReason>(99), 0, bytes);
  EXPECT_FALSE(decode_reject(bytes, sizeof bytes, &reason, &detail));
}

namespace jrdma::wire {
namespace {

TEST(ConnectData, RoundTripsAfterTheHandshakeAndPaddingReadsAsNone) {
  uint8_t request[kMaxRequestSize] = {};
  const uint8_t data[] = {'t', 'e', 'n', 'a', 'n', 't', '7'};
  encode_connect_data(data, sizeof data, request + kHandshakeSize);
  std::vector<uint8_t> out;
  ASSERT_TRUE(decode_connect_data(request, kHandshakeSize + 1 + sizeof data, &out));
  EXPECT_EQ(std::vector<uint8_t>(data, data + sizeof data), out);
  ASSERT_TRUE(decode_connect_data(request, kMaxRequestSize, &out));  // rdma_cm padded it
  EXPECT_EQ(sizeof data, out.size());
  uint8_t padded[kMaxRequestSize] = {};  // a client without connect data
  ASSERT_TRUE(decode_connect_data(padded, sizeof padded, &out));
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(decode_connect_data(padded, kHandshakeSize, &out));
  EXPECT_TRUE(out.empty());
}

TEST(ConnectData, ALengthBeyondThePrivateDataIsMalformed) {
  uint8_t request[kMaxRequestSize] = {};
  request[kHandshakeSize] = 24;  // more than fits
  std::vector<uint8_t> out;
  EXPECT_FALSE(decode_connect_data(request, sizeof request, &out));
  request[kHandshakeSize] = 10;  // claims 10, carries 5
  EXPECT_FALSE(decode_connect_data(request, kHandshakeSize + 1 + 5, &out));
}

TEST(Refusal, CarriesCodeAndTextCutAtItsLimit) {
  uint8_t bytes[kRejectSize + 1 + kMaxRejectText];
  std::size_t n = encode_refusal(403, "tenant unknown", bytes);
  RejectReason reason;
  uint32_t detail;
  ASSERT_TRUE(decode_reject(bytes, n, &reason, &detail));
  EXPECT_EQ(RejectReason::kAdmissionRefused, reason);
  EXPECT_EQ(403u, detail);
  EXPECT_EQ("tenant unknown", decode_refusal_text(bytes, n));
  n = encode_refusal(1, std::string(500, 'x'), bytes);
  EXPECT_EQ(kRejectSize + 1 + kMaxRejectText, n);
  EXPECT_EQ(std::string(kMaxRejectText, 'x'), decode_refusal_text(bytes, n));
  bytes[kRejectSize] = 200;  // a peer claiming more text than it sent
  EXPECT_EQ("", decode_refusal_text(bytes, n));
  EXPECT_EQ("", decode_refusal_text(bytes, kRejectSize));
}

}  // namespace
}  // namespace jrdma::wire
