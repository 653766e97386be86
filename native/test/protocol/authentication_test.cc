// The proof exchange alone (protocol/authentication.h), two state machines passing their messages
// by hand: the same key opens both in three messages; a wrong key, a replayed, reflected or
// tampered message, or a confirmation before the proof, is a wrong proof.
#include "protocol/authentication.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"

namespace jrdma {
namespace {

std::vector<uint8_t> key(const std::string& text) { return std::vector<uint8_t>(text.begin(), text.end()); }

struct Exchange {
  Exchange(const std::string& client_key, const std::string& server_key, uint8_t nonce_byte = 7)
      : client_key_(key(client_key)), server_key_(key(server_key)) {
    std::memset(server_nonce, nonce_byte, sizeof server_nonce);
    client.start(true, server_nonce, client_key_);
    server.start(false, server_nonce, server_key_);
  }
  uint8_t server_nonce[wire::kNonceSize];
  std::vector<uint8_t> client_key_;
  std::vector<uint8_t> server_key_;
  Authentication client;
  Authentication server;
};

TEST(AuthenticationExchange, TheSameKeyOpensBothSidesInThreeMessages) {
  Exchange e("correct horse", "correct horse");
  ASSERT_TRUE(e.client.pending() && e.server.pending());
  AuthMessage first = e.client.client_proof();
  Authentication::Reply at_server = e.server.receive(first.bytes);
  ASSERT_EQ(Authentication::Step::kGrantAndAnswer, at_server.step);
  EXPECT_TRUE(e.server.pending()) << "the server waits for the client's confirmation";
  Authentication::Reply at_client = e.client.receive(at_server.answer.bytes);
  ASSERT_EQ(Authentication::Step::kGrantAndAnswer, at_client.step);
  EXPECT_FALSE(e.client.pending()) << "the client opens once its confirmation is sent";
  EXPECT_EQ(Authentication::Step::kOpen, e.server.receive(at_client.answer.bytes).step);
  EXPECT_FALSE(e.server.pending());
}

TEST(AuthenticationExchange, AWrongKeyFailsAtTheServerFirst) {
  Exchange e("the client's key", "the server's key");
  EXPECT_EQ(Authentication::Step::kWrongProof, e.server.receive(e.client.client_proof().bytes).step);
  EXPECT_TRUE(e.server.pending()) << "nothing opened";
}

TEST(AuthenticationExchange, AServerThatDoesNotHoldTheKeyFailsAtTheClient) {
  Exchange e("shared", "shared");
  Authentication impostor;
  std::vector<uint8_t> other = key("guessed");
  impostor.start(false, e.server_nonce, other);
  // The impostor answers like a server, with its own key: the client refuses it.
  Authentication::Reply answer = impostor.receive(e.client.client_proof().bytes);
  EXPECT_EQ(Authentication::Step::kWrongProof, answer.step) << "it cannot even check the client's proof";
  AuthMessage forged = e.client.client_proof();  // the client's own message reflected back
  EXPECT_EQ(Authentication::Step::kWrongProof, e.client.receive(forged.bytes).step);
}

TEST(AuthenticationExchange, AProofRecordedUnderAnotherServerNonceDoesNotCheck) {
  Exchange recorded("shared", "shared", 1);
  AuthMessage old = recorded.client.client_proof();
  Exchange fresh("shared", "shared", 2);
  EXPECT_EQ(Authentication::Step::kWrongProof, fresh.server.receive(old.bytes).step);
}

TEST(AuthenticationExchange, ATamperedOrEarlyConfirmationDoesNotOpenTheServer) {
  Exchange e("shared", "shared");
  AuthMessage first = e.client.client_proof();
  Authentication::Reply at_server = e.server.receive(first.bytes);
  ASSERT_EQ(Authentication::Step::kGrantAndAnswer, at_server.step);
  // The client's first message again instead of its confirmation: a wrong proof.
  EXPECT_EQ(Authentication::Step::kWrongProof, e.server.receive(first.bytes).step);
  Authentication::Reply at_client = e.client.receive(at_server.answer.bytes);
  ASSERT_EQ(Authentication::Step::kGrantAndAnswer, at_client.step);
  AuthMessage tampered = at_client.answer;
  tampered.bytes[wire::kNonceSize] ^= 1;
  EXPECT_EQ(Authentication::Step::kWrongProof, e.server.receive(tampered.bytes).step);
  EXPECT_EQ(Authentication::Step::kOpen, e.server.receive(at_client.answer.bytes).step) << "the real one still opens";
}

TEST(AuthenticationExchange, TheDeadlineCountsOnlyWhileTheExchangeRuns) {
  Exchange e("shared", "shared");
  auto now = std::chrono::steady_clock::now();
  e.server.set_deadline(now + std::chrono::seconds(1));
  EXPECT_FALSE(e.server.expired(now));
  EXPECT_TRUE(e.server.expired(now + std::chrono::seconds(1)));
  e.server.stop();
  EXPECT_FALSE(e.server.expired(now + std::chrono::seconds(5)));
}

TEST(AuthenticationExchange, StartingWithoutAKeyIsRefused) {
  Authentication a;
  uint8_t nonce[wire::kNonceSize] = {};
  std::vector<uint8_t> none;
  EXPECT_THROW(a.start(true, nonce, none), RdmaError);
  EXPECT_FALSE(a.pending());
}

}  // namespace
}  // namespace jrdma
