// Pre-shared-key authentication of one channel (docs/protocol.md, "Authentication"), as a state
// machine of its own: once the connection is up, each side proves it holds the key with
// HMAC-SHA256 (OpenSSL's libcrypto, crypto/crypto.h) over both sides' fresh nonces — the server's
// (sent in its accept) and the client's (in its first AUTH) — under a label per direction, so no
// proof can be replayed or reflected and the key never travels. The client then confirms that it
// checked the server's proof (a third AUTH), and only then does the server open: so the server
// cannot post a one-sided operation before the client has granted its memory. The channel engine
// carries the messages and acts on what receive() answers.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "wire/handshake.h"
#include "wire/message_header.h"

namespace jrdma {

// An AUTH message's payload: a nonce and a proof.
struct AuthMessage {
  uint8_t bytes[wire::kAuthPayloadSize] = {};
};

class Authentication {
 public:
  // What an AUTH from the peer asks of the channel.
  enum class Step {
    kWrongProof,      // close: the peer does not hold the key (or replayed, reflected, tampered)
    kGrantAndAnswer,  // the peer's proof checked: open our memory to it, then send `answer`; open
                      // for the application when pending() is false after it (the client)
    kOpen,            // server: the client confirmed; open for the application
  };
  struct Reply {
    Step step = Step::kWrongProof;
    AuthMessage answer;
  };

  // Starts the exchange with `key` (kept by reference: the engine's options own it); the server
  // made `server_nonce`, the client read it from the accept. The client draws its own nonce now;
  // throws RdmaError when getrandom() fails.
  void start(bool client, const uint8_t* server_nonce, const std::vector<uint8_t>& key);
  // The exchange runs: the peer may send nothing but AUTH and CREDIT.
  bool pending() const noexcept { return pending_; }
  bool client() const noexcept { return client_; }
  // The exchange ends without a result (the channel closed).
  void stop() noexcept { pending_ = false; }

  // The client speaks first: its nonce and its proof over the server's nonce and its own. Throws
  // RdmaError when libcrypto fails.
  AuthMessage client_proof() const;
  // An AUTH from the peer. Throws RdmaError when libcrypto fails.
  Reply receive(const uint8_t* payload);

  void set_deadline(std::chrono::steady_clock::time_point deadline) noexcept { deadline_ = deadline; }
  // The peer took too long for its part (auth_timeout_ms).
  bool expired(std::chrono::steady_clock::time_point now) const noexcept { return pending_ && now >= deadline_; }

 private:
  const std::vector<uint8_t>* key_ = nullptr;
  bool pending_ = false;
  bool client_ = false;
  bool confirming_ = false;  // server: the client's proof checked, ours sent; opens on the confirmation
  uint8_t server_nonce_[wire::kNonceSize] = {};
  uint8_t client_nonce_[wire::kNonceSize] = {};
  std::chrono::steady_clock::time_point deadline_{};
};

}  // namespace jrdma
