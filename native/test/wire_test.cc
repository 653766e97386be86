#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

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
  bad_type[0] = 9;
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

TEST(Handshake, RoundTrips) {
  Handshake out;
  out.credits = 128;
  out.eager = 4096;
  out.max_message = 4080;
  uint8_t bytes[kHandshakeSize];
  encode_handshake(out, bytes);
  Handshake in;
  ASSERT_EQ(RejectReason::kNone, decode_handshake(bytes, sizeof bytes, &in));
  EXPECT_EQ(128u, in.credits);
  EXPECT_EQ(4096u, in.eager);
  EXPECT_EQ(4080u, in.max_message);
  // rdma_cm pads private data: longer is fine.
  uint8_t padded[56] = {};
  std::memcpy(padded, bytes, sizeof bytes);
  EXPECT_EQ(RejectReason::kNone, decode_handshake(padded, sizeof padded, &in));
}

TEST(Handshake, CarriesThePathMtuAndReadsAHandshakeWithoutItAsNoLimit) {
  Handshake out;
  out.credits = 16;
  out.eager = 4096;
  out.max_message = 4080;
  out.mtu = 1024;
  uint8_t bytes[kHandshakeSize];
  encode_handshake(out, bytes);
  Handshake in;
  ASSERT_EQ(RejectReason::kNone, decode_handshake(bytes, sizeof bytes, &in));
  EXPECT_EQ(1024u, in.mtu);
  // A peer from before the field sends 20 bytes, which rdma_cm pads with zeros: no limit.
  ASSERT_EQ(RejectReason::kNone, decode_handshake(bytes, kHandshakeMinSize, &in));
  EXPECT_EQ(0u, in.mtu);
  out.mtu = 1500;  // not a verbs MTU
  encode_handshake(out, bytes);
  EXPECT_EQ(RejectReason::kMalformed, decode_handshake(bytes, sizeof bytes, &in));
}

TEST(Handshake, RejectsMalformedAndMismatched) {
  Handshake h;
  h.credits = 16;
  h.eager = 4096;
  h.max_message = 4080;
  uint8_t bytes[kHandshakeSize];
  Handshake in;
  encode_handshake(h, bytes);
  EXPECT_EQ(RejectReason::kMalformed, decode_handshake(nullptr, 0, &in));
  EXPECT_EQ(RejectReason::kMalformed, decode_handshake(bytes, kHandshakeMinSize - 1, &in));
  bytes[0] ^= 1;
  EXPECT_EQ(RejectReason::kMalformed, decode_handshake(bytes, sizeof bytes, &in));
  Handshake v2 = h;
  v2.version = 2;
  encode_handshake(v2, bytes);
  EXPECT_EQ(RejectReason::kVersionMismatch, decode_handshake(bytes, sizeof bytes, &in));
  EXPECT_EQ(2, in.version);
  Handshake no_credits = h;
  no_credits.credits = 0;
  encode_handshake(no_credits, bytes);
  EXPECT_EQ(RejectReason::kBadCredits, decode_handshake(bytes, sizeof bytes, &in));
  Handshake tiny = h;
  tiny.eager = 8;
  tiny.max_message = 0;
  encode_handshake(tiny, bytes);
  EXPECT_EQ(RejectReason::kEagerMismatch, decode_handshake(bytes, sizeof bytes, &in));
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
  encode_reject(static_cast<RejectReason>(99), 0, bytes);
  EXPECT_FALSE(decode_reject(bytes, sizeof bytes, &reason, &detail));
}
