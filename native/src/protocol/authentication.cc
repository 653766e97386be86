#include "protocol/authentication.h"

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "crypto/crypto.h"

namespace jrdma {

namespace {
const char kClientLabel[] = "jrdma client proof";
const char kServerLabel[] = "jrdma server proof";
const char kConfirmLabel[] = "jrdma client confirm";

crypto::Digest proof(const std::vector<uint8_t>& key, const char* label, const uint8_t* first, const uint8_t* second) {
  return crypto::hmac_sha256(key.data(), key.size(), reinterpret_cast<const uint8_t*>(label), std::strlen(label), first,
                             wire::kNonceSize, second, wire::kNonceSize);
}

AuthMessage message(const uint8_t* nonce, const crypto::Digest& proof_bytes) {
  AuthMessage m;
  std::memcpy(m.bytes, nonce, wire::kNonceSize);
  std::memcpy(m.bytes + wire::kNonceSize, proof_bytes.data(), wire::kProofSize);
  return m;
}
}  // namespace

void Authentication::start(bool client, const uint8_t* server_nonce, const std::vector<uint8_t>& key) {
  if (key.empty()) throw RdmaError(ErrorKind::kIllegalState, "authentication without a pre-shared key");
  if (client && !crypto::random_bytes(client_nonce_, wire::kNonceSize)) {
    throw RdmaError(ErrorKind::kIllegalState, "getrandom() failed: no nonce for the authentication", errno);
  }
  key_ = &key;
  client_ = client;
  confirming_ = false;
  std::memcpy(server_nonce_, server_nonce, wire::kNonceSize);
  pending_ = true;
}

AuthMessage Authentication::client_proof() const {
  return message(client_nonce_, proof(*key_, kClientLabel, server_nonce_, client_nonce_));
}

Authentication::Reply Authentication::receive(const uint8_t* payload) {
  const uint8_t* nonce = payload;
  const uint8_t* offered = payload + wire::kNonceSize;
  Reply reply;
  bool valid;
  if (confirming_) {
    // The client's confirmation: its nonce again, and a proof under the confirmation's label.
    crypto::Digest expected = proof(*key_, kConfirmLabel, server_nonce_, client_nonce_);
    valid = crypto::equal_in_constant_time(nonce, client_nonce_, wire::kNonceSize) &
            crypto::equal_in_constant_time(offered, expected.data(), wire::kProofSize);
    if (!valid) return reply;
    confirming_ = false;
    pending_ = false;
    reply.step = Step::kOpen;
    return reply;
  }
  if (client_) {
    // The server's answer: the nonce of its accept, and its proof over our nonce and its own.
    crypto::Digest expected = proof(*key_, kServerLabel, client_nonce_, server_nonce_);
    valid = crypto::equal_in_constant_time(nonce, server_nonce_, wire::kNonceSize) &
            crypto::equal_in_constant_time(offered, expected.data(), wire::kProofSize);
    if (!valid) return reply;
    // Our confirmation says that we checked it; then we are open.
    reply.answer = message(client_nonce_, proof(*key_, kConfirmLabel, server_nonce_, client_nonce_));
    pending_ = false;
  } else {
    std::memcpy(client_nonce_, nonce, wire::kNonceSize);
    crypto::Digest expected = proof(*key_, kClientLabel, server_nonce_, client_nonce_);
    valid = crypto::equal_in_constant_time(offered, expected.data(), wire::kProofSize);
    if (!valid) return reply;
    reply.answer = message(server_nonce_, proof(*key_, kServerLabel, client_nonce_, server_nonce_));
    confirming_ = true;  // open once the client confirms (it grants its memory first)
  }
  reply.step = Step::kGrantAndAnswer;
  return reply;
}

}  // namespace jrdma
