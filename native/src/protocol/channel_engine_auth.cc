// Pre-shared-key authentication in the channel engine: the proof exchange itself is
// protocol/authentication.h; here its messages travel as AUTH control messages, and the channel
// acts on each step. Each side's transport grants remote access only once the peer proved itself;
// the channel opens for Java only after the peer's proof checked (the server after the client's
// confirmation), and until then the peer may send nothing but AUTH and CREDIT. A wrong proof, a
// peer that hangs up or one too slow closes the channel as a failed connect.
#include <cstring>

#include "base/error.h"
#include "protocol/channel_engine.h"

namespace jrdma {

void ChannelEngine::authenticate(bool client, const uint8_t* server_nonce) {
  std::lock_guard<std::mutex> lock(mutex_);
  auth_.start(client, server_nonce, options_.psk);
}

bool ChannelEngine::authenticating() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return auth_.pending();
}

// The client speaks first.
void ChannelEngine::send_client_proof_locked() {
  AuthMessage first;
  try {
    first = auth_.client_proof();
  } catch (const RdmaError& e) {  // libcrypto gone or failing: checked when the key was configured
    return finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kSetupError),
                         e.errno_value());
  }
  send_auth_locked(first);
}

void ChannelEngine::send_auth_locked(const AuthMessage& message) {
  uint32_t slot = take_message_slot_locked(OpKind::kControl, 0, 0, wire::MessageType::kAuth, wire::kAuthPayloadSize);
  std::memcpy(header_slot(slot) + wire::kHeaderSize, message.bytes, wire::kAuthPayloadSize);
  chain_control_locked(slot, wire::kAuthPayloadSize);
  flush_locked();
}

void ChannelEngine::receive_auth_locked(uint32_t slot) {
  uint8_t payload[wire::kAuthPayloadSize];
  std::memcpy(payload, ring_.data(slot) + wire::kHeaderSize, sizeof payload);
  ring_.release(slot);
  if (!auth_.pending()) return protocol_error_locked(static_cast<int32_t>(ProtocolViolation::kNotAuthenticated));
  Authentication::Reply reply;
  try {
    reply = auth_.receive(payload);
  } catch (const RdmaError& e) {  // libcrypto gone or failing (checked when the key was configured)
    return finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kSetupError),
                         e.errno_value());
  }
  switch (reply.step) {
    case Authentication::Step::kWrongProof:
      return finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kAuthFailed),
                           static_cast<int64_t>(AuthFailure::kWrongProof));
    case Authentication::Step::kOpen:  // server: the client has granted its side; both are open now
      return announce_open_locked();
    case Authentication::Step::kGrantAndAnswer:
      // Granted before our own proof or confirmation leaves: the peer may use the memory once it has it.
      if (!grant_remote_access_locked()) return;
      send_auth_locked(reply.answer);
      if (!auth_.pending()) announce_open_locked();  // the client, its confirmation sent before anything of ours
      return;
  }
}

}  // namespace jrdma
