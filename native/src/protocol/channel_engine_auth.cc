// Pre-shared-key authentication in the channel engine (docs/protocol.md, "Authentication"): once
// the connection is up, each side proves it holds the key with HMAC-SHA256 (OpenSSL's libcrypto,
// crypto/crypto.h) over both sides' fresh
// nonces — the server's (sent in its accept) and the client's (in its AUTH) — under a label per
// direction, so no proof can be replayed or reflected and the key never travels. The client then
// confirms that it checked the server's proof (a third AUTH), and only then does the server open:
// so the server cannot post a one-sided operation before the client has granted its memory — each
// side's transport grants remote access only once the peer proved itself. The channel opens for
// Java only after the peer's proof checked; until then the peer may send nothing but AUTH and
// CREDIT. A wrong proof, a peer that hangs up or one too slow closes the channel as a failed connect.
#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "crypto/crypto.h"
#include "protocol/channel_engine.h"

namespace jrdma {

namespace {
const char kClientLabel[] = "jrdma client proof";
const char kServerLabel[] = "jrdma server proof";
const char kConfirmLabel[] = "jrdma client confirm";

crypto::Digest proof(const std::vector<uint8_t>& key, const char* label, const uint8_t* first, const uint8_t* second) {
  return crypto::hmac_sha256(key.data(), key.size(), reinterpret_cast<const uint8_t*>(label), std::strlen(label), first,
                             wire::kNonceSize, second, wire::kNonceSize);
}
}  // namespace

void ChannelEngine::authenticate(bool client, const uint8_t* server_nonce) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (options_.psk.empty()) throw RdmaError(ErrorKind::kIllegalState, "authentication without a pre-shared key");
  auth_.pending = true;
  auth_.client = client;
  std::memcpy(auth_.server_nonce, server_nonce, wire::kNonceSize);
  if (client && !crypto::random_bytes(auth_.client_nonce, wire::kNonceSize)) {
    throw RdmaError(ErrorKind::kIllegalState, "getrandom() failed: no nonce for the authentication", errno);
  }
}

bool ChannelEngine::authenticating() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return auth_.pending;
}

// The client speaks first: its nonce and its proof over the server's nonce and its own.
void ChannelEngine::send_client_proof_locked() {
  crypto::Digest p;
  try {
    p = proof(options_.psk, kClientLabel, auth_.server_nonce, auth_.client_nonce);
  } catch (const RdmaError& e) {  // libcrypto gone or failing: checked when the key was configured
    return finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kSetupError),
                         e.errno_value());
  }
  send_auth_locked(auth_.client_nonce, p.data());
}

void ChannelEngine::send_auth_locked(const uint8_t* nonce, const uint8_t* proof_bytes) {
  uint32_t slot = take_message_slot_locked(OpKind::kControl, 0, 0, wire::MessageType::kAuth, wire::kAuthPayloadSize);
  uint8_t* payload = header_slot(slot) + wire::kHeaderSize;
  std::memcpy(payload, nonce, wire::kNonceSize);
  std::memcpy(payload + wire::kNonceSize, proof_bytes, wire::kProofSize);
  chain_control_locked(slot, wire::kAuthPayloadSize);
  flush_locked();
}

void ChannelEngine::receive_auth_locked(uint32_t slot) {
  uint8_t payload[wire::kAuthPayloadSize];
  std::memcpy(payload, ring_.data(slot) + wire::kHeaderSize, sizeof payload);
  ring_.release(slot);
  if (!auth_.pending) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kNotAuthenticated));
  const uint8_t* nonce = payload;
  const uint8_t* offered = payload + wire::kNonceSize;
  bool valid;
  crypto::Digest answer{};
  try {
    if (auth_.confirming) {
      // The client's confirmation: its nonce again, and a proof under the confirmation's label.
      crypto::Digest expected = proof(options_.psk, kConfirmLabel, auth_.server_nonce, auth_.client_nonce);
      valid = crypto::equal_in_constant_time(nonce, auth_.client_nonce, wire::kNonceSize) &
              crypto::equal_in_constant_time(offered, expected.data(), wire::kProofSize);
    } else if (auth_.client) {
      // The server's answer: the nonce of its accept, and its proof over our nonce and its own.
      crypto::Digest expected = proof(options_.psk, kServerLabel, auth_.client_nonce, auth_.server_nonce);
      valid = crypto::equal_in_constant_time(nonce, auth_.server_nonce, wire::kNonceSize) &
              crypto::equal_in_constant_time(offered, expected.data(), wire::kProofSize);
      // Our confirmation says that we checked it.
      if (valid) answer = proof(options_.psk, kConfirmLabel, auth_.server_nonce, auth_.client_nonce);
    } else {
      std::memcpy(auth_.client_nonce, nonce, wire::kNonceSize);
      crypto::Digest expected = proof(options_.psk, kClientLabel, auth_.server_nonce, auth_.client_nonce);
      valid = crypto::equal_in_constant_time(offered, expected.data(), wire::kProofSize);
      answer = proof(options_.psk, kServerLabel, auth_.client_nonce, auth_.server_nonce);
    }
  } catch (const RdmaError& e) {  // libcrypto gone or failing (checked when the key was configured)
    return finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kSetupError),
                         e.errno_value());
  }
  if (!valid) {
    return finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kAuthFailed),
                         static_cast<int64_t>(AuthFailure::kWrongProof));
  }
  if (auth_.confirming) {  // server: the client has granted its side; both are open now
    auth_.confirming = false;
    auth_.pending = false;
    return announce_open_locked();
  }
  // Granted before our own proof or confirmation leaves: the peer may use the memory once it has it.
  if (!grant_remote_access_locked()) return;
  if (!auth_.client) {
    send_auth_locked(auth_.server_nonce, answer.data());
    auth_.confirming = true;  // open once the client confirms (it grants its memory first)
    return;
  }
  send_auth_locked(auth_.client_nonce, answer.data());  // the confirmation, before anything of ours
  auth_.pending = false;
  announce_open_locked();
}

}  // namespace jrdma
