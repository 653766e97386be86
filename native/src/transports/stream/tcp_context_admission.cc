// Peer admission over TCP (docs/security.md), as the verbs context does it (transports/verbs/verbs_admission.cc): a
// listener with an admission policy parks each hello that passed its checks — no channel memory is
// taken for it yet — and asks Java (kAdmissionRequest); the policy sees the peer's address and
// connect data and decides at once on the loop thread. Accepted: the usual answer and channel;
// refused: a reject carrying the policy's code and text, which the client reports.
#include "base/error.h"
#include "base/socket_address.h"
#include "transports/stream/tcp_context.h"

namespace jrdma::tcp {

void TcpContext::park_for_admission(TcpHello& hello, const wire::Handshake& peer) {
  hello.awaiting = true;
  hello.peer = peer;
  const uint8_t* data = hello.bytes + wire::kHandshakeSize + 1;
  hello.data.assign(data, data + hello.bytes[wire::kHandshakeSize]);
  hello.peer_address = socket_end_text(hello.fd, false);
  emit(make_record(EventKind::kAdmissionRequest, 0, 0, 0, handle_of(&hello), handle_of(hello.listener)));
}

const TcpHello* TcpContext::awaiting(int64_t handle) const noexcept {
  std::lock_guard<std::mutex> lock(hellos_mutex_);
  for (const auto& hello : hellos_) {
    if (hello->awaiting && handle_of(hello.get()) == handle) return hello.get();
  }
  return nullptr;
}

void TcpContext::decide(int64_t handle, bool accept, uint32_t code, const std::string& text) {
  auto* hello = const_cast<TcpHello*>(awaiting(handle));
  if (hello == nullptr) {
    throw RdmaError(ErrorKind::kIllegalArgument,
                    "no connection request " + std::to_string(handle) + " awaits a decision");
  }
  hello->awaiting = false;
  if (accept) return admit(*hello, hello->peer);
  uint8_t answer[1 + wire::kRejectSize + 1 + wire::kMaxRejectText];
  answer[0] = kAnswerRejected;
  std::size_t length = 1 + wire::encode_refusal(code, text, answer + 1);
  if (::send(hello->fd, answer, length, MSG_NOSIGNAL) < 0) {
    // the client is gone already: nothing to tell it
  }
  drop(*hello);  // Java's policy knows its own refusals: no kIncomingRejected
}

}  // namespace jrdma::tcp
