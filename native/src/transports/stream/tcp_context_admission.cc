// Peer admission over TCP (docs/security.md), as the verbs context does it (transports/verbs/verbs_admission.cc): a
// listener with an admission policy parks each hello that passed its checks — no channel memory is
// taken for it yet — and asks Java (kAdmissionRequest); the policy sees the peer's address and
// connect data and decides at once on the loop thread. Accepted: the usual answer and channel;
// refused: a reject carrying the policy's code and text, which the client reports.
#include "base/socket_address.h"
#include "transports/stream/tcp_context.h"

namespace jrdma::tcp {

void TcpContext::park_for_admission(TcpHello& hello, const wire::Handshake& peer) {
  auto request = std::make_unique<TcpAdmission>();
  const uint8_t* data = hello.bytes + wire::kHandshakeSize + 1;
  request->data.assign(data, data + hello.bytes[wire::kHandshakeSize]);
  request->peer = peer;
  request->peer_address = socket_end_text(hello.fd, false);
  request->place = std::move(hello.place);
  request->hello = take_hello(hello);
  request->hello->awaiting = true;
  int64_t handle = awaiting_.park(std::move(request));
  emit(make_record(EventKind::kAdmissionRequest, 0, 0, 0, handle, handle_of(hello.listener)));
}

void TcpContext::decide(int64_t handle, bool accept, uint32_t code, const std::string& text) {
  std::unique_ptr<TcpAdmission> request = awaiting_.take(handle);
  TcpHello& hello = *request->hello;
  hello.awaiting = false;
  hello.place = std::move(request->place);
  if (accept) return admit(hello, request->peer);
  uint8_t answer[1 + wire::kRejectSize + 1 + wire::kMaxRejectText];
  answer[0] = kAnswerRejected;
  std::size_t length = 1 + wire::encode_refusal(code, text, answer + 1);
  if (::send(hello.fd, answer, length, MSG_NOSIGNAL) < 0) {
    // the client is gone already: nothing to tell it
  }
  drop(hello);  // Java's policy knows its own refusals: no kIncomingRejected
}

// The listener closes: requests still waiting are refused, "server closing", as over verbs.
void TcpContext::refuse_awaiting_of(const TcpListener* listener) noexcept {
  awaiting_.refuse_each([listener](const TcpAdmission& request) { return request.hello->listener == listener; },
                        [this](TcpAdmission& request) {
                          send_reject(request.hello->fd, wire::RejectReason::kServerClosing, 0);
                          drop(*request.hello);
                        });
}

}  // namespace jrdma::tcp
