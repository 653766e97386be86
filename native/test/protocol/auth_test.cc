// Pre-shared-key authentication over the in-memory transport: both sides prove the key before the
// channel opens; a wrong key, a silent peer, a peer that hangs up and a peer that sends data before
// proving anything all end the connection as a failed connect, with nothing delivered.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "test/protocol/engine_pair.h"
#include "wire/message_header.h"

namespace jrdma::test {
namespace {

EngineOptions with_key(const char* key) {
  EngineOptions o;
  o.depth = 8;
  o.eager = 256;
  o.graceful_close_ms = 50;
  o.auth_timeout_ms = 1000;
  o.psk.assign(key, key + std::strlen(key));
  return o;
}

void expect_auth_failure(Side& s, AuthFailure why) {
  EXPECT_TRUE(s.closed);
  EXPECT_FALSE(s.open) << "the channel never opened for the application";
  EXPECT_EQ(s.closed_cause, static_cast<int>(ClosedCause::kConnectFailed));
  EXPECT_EQ(s.closed_code, static_cast<int>(ChannelFailure::kAuthFailed));
  EXPECT_EQ(s.closed_detail, static_cast<int64_t>(why));
}

TEST(Authentication, TheSameKeyOpensBothSidesAfterTheProofs) {
  EnginePair pair(with_key("correct horse battery staple"), with_key("correct horse battery staple"), true);
  EXPECT_FALSE(pair.a.open);
  EXPECT_FALSE(pair.b.open);
  EXPECT_TRUE(pair.a.engine.authenticating());
  pair.settle();
  EXPECT_TRUE(pair.a.open);
  EXPECT_TRUE(pair.b.open);
  EXPECT_FALSE(pair.a.engine.authenticating() || pair.b.engine.authenticating());
  // Then an ordinary channel: messages both ways.
  for (Side* s : {&pair.a, &pair.b}) {
    Submission send = pair.make(*s, OpKind::kSend, 32);
    s->engine.submit(&send, 1);
  }
  pair.settle();
  EXPECT_EQ(pair.a.data_received, 1u);
  EXPECT_EQ(pair.b.data_received, 1u);
  EXPECT_EQ(pair.a.violation, "");
  EXPECT_EQ(pair.b.violation, "");
}

TEST(Authentication, AWrongKeyNeverOpensEitherSide) {
  EnginePair pair(with_key("client key, not the server's"), with_key("the server's own key"), true);
  pair.settle();
  // The server checks the client's proof first and closes; the client sees the hang-up.
  expect_auth_failure(pair.b, AuthFailure::kWrongProof);
  expect_auth_failure(pair.a, AuthFailure::kPeerHungUp);
}

TEST(Authentication, ASilentPeerTimesOut) {
  EnginePair pair(with_key("k1234567890123456"), with_key("k1234567890123456"), true);
  // Nothing is delivered: the server never sees the client's proof.
  auto now = std::chrono::steady_clock::now();
  pair.b.engine.tick(now + std::chrono::milliseconds(500));
  pair.process(pair.b, pair.a);
  EXPECT_FALSE(pair.b.closed);
  pair.b.engine.tick(now + std::chrono::milliseconds(1100));
  pair.process(pair.b, pair.a);
  expect_auth_failure(pair.b, AuthFailure::kTimedOut);
}

// Delivers raw bytes as the next message into side b (the server).
void inject(EnginePair& pair, const uint8_t* bytes, std::size_t length) {
  uint32_t slot = pair.b.transport.first_posted_receive();
  pair.b.transport.take_first_receive();
  std::memcpy(pair.b.transport.ring_slot(slot), bytes, length);
  pair.b.transport.push_completion({true, slot, kStatusSuccess, static_cast<uint32_t>(length)});
  pair.b.transport.deliver_one(pair.b.engine);
  pair.process(pair.b, pair.a);
}

TEST(Authentication, DataBeforeTheProofIsAProtocolErrorAndNothingIsDelivered) {
  EnginePair pair(with_key("k1234567890123456"), with_key("k1234567890123456"), true);
  // A forged client: its first message is data, not the proof (the real proof is never delivered).
  uint8_t bytes[wire::kHeaderSize + 8] = {};
  wire::encode_header({wire::MessageType::kData, 0, 0, 8, 0}, bytes);
  inject(pair, bytes, sizeof bytes);
  EXPECT_TRUE(pair.b.closed);
  EXPECT_FALSE(pair.b.open);
  EXPECT_EQ(pair.b.closed_cause, static_cast<int>(ClosedCause::kProtocolError));
  EXPECT_EQ(pair.b.closed_code, static_cast<int>(ProtocolViolation::kNotAuthenticated));
  EXPECT_EQ(pair.b.data_received, 0u);
}

// The server opens only once the client confirmed that it checked the server's proof (and granted
// its memory): a client that sends its proof and then a forged confirmation never gets a channel.
TEST(Authentication, TheServerOpensOnlyOnTheClientsConfirmation) {
  EngineOptions key = with_key("k1234567890123456");
  EnginePair recorded(key, key, true, 1, 0, 9);
  const WorkRequest& proof = recorded.a.transport.first_send();
  std::vector<uint8_t> bytes(proof.header, proof.header + proof.header_length);
  EnginePair pair(key, key, true, 1, 0, 9);
  inject(pair, bytes.data(), bytes.size());
  ASSERT_FALSE(pair.b.open);
  std::vector<uint8_t> forged = bytes;  // the client's proof again (as the next message), in place of the confirmation
  forged[8] = 1;                        // the header's id: the second message
  inject(pair, forged.data(), forged.size());
  expect_auth_failure(pair.b, AuthFailure::kWrongProof);
  EXPECT_FALSE(pair.b.open);
}

TEST(Authentication, AReplayedProofFailsUnderAFreshServerNonce) {
  // An on-path attacker records a client's proof and replays it to the same server later: the
  // server's nonce differs per connection, so the proof does not match.
  EngineOptions key = with_key("k1234567890123456");
  EnginePair recorded(key, key, true, 1, 0, 9);
  ASSERT_EQ(recorded.a.transport.pending_sends(), 1u);
  const WorkRequest& proof = recorded.a.transport.first_send();
  std::vector<uint8_t> bytes(proof.header, proof.header + proof.header_length);
  ASSERT_EQ(bytes.size(), wire::kHeaderSize + wire::kAuthPayloadSize);

  EnginePair later(key, key, true, 1, 0, 10);
  inject(later, bytes.data(), bytes.size());
  expect_auth_failure(later.b, AuthFailure::kWrongProof);

  EnginePair same(key, key, true, 1, 0, 9);  // the control: the same nonce accepts it
  inject(same, bytes.data(), bytes.size());
  EXPECT_FALSE(same.b.closed) << "the proof checked";
  EXPECT_FALSE(same.b.open) << "the server opens only on the client's confirmation";
}

}  // namespace
}  // namespace jrdma::test
