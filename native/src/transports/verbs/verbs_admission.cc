// Peer admission (docs/security.md): a listener with an admission policy parks each connection
// request that passed the handshake and the pending limits — nothing is created for it yet — and
// asks Java (kAdmissionRequest); Java's policy sees the peer's address and connect data and decides
// at once on the loop thread (decide()). Accepted: the usual accept path; refused: a reject whose
// private data carries the policy's code and text, which the client reports.
#include <memory>
#include <string>

#include "base/socket_address.h"
#include "transports/verbs/verbs_context.h"

namespace jrdma {

// Throws the RejectReason kMalformed for connect data that does not fit its private data.
void VerbsContext::park_for_admission(VerbsListener* listener, verbs::CmId owned, const wire::Handshake& peer,
                                      const rdma_cm_event* event, PendingPlace place) {
  auto request = std::make_unique<AwaitingAdmission>();
  if (!wire::decode_connect_data(event->param.conn.private_data, event->param.conn.private_data_len, &request->data)) {
    throw wire::RejectReason::kMalformed;
  }
  request->listener = listener;
  request->peer = peer;
  request->peer_address = address_text(rdma_get_peer_addr(owned.get()));
  request->place = std::move(place);
  owned->context = nullptr;  // no channel yet: its later events (none before the accept) are ignored
  request->id = std::move(owned);
  int64_t handle = awaiting_.park(std::move(request));
  emit(make_record(EventKind::kAdmissionRequest, 0, 0, 0, handle, handle_of(listener)));
}

const AwaitingAdmission* VerbsContext::awaiting(int64_t handle) const noexcept { return awaiting_.find(handle); }

void VerbsContext::decide(int64_t handle, bool accept, uint32_t code, const std::string& text) {
  std::unique_ptr<AwaitingAdmission> request = awaiting_.take(handle);
  VerbsListener* listener = request->listener;
  Refusal refusal{wire::RejectReason::kAdmissionRefused, code, code};
  if (accept && !listener->closing) {
    if (VerbsChannelEntry* channel = accept_request(listener, request->id, request->peer, &refusal)) {
      channel->pending = std::move(request->place);
      emit(make_record(EventKind::kIncoming, channel->key, 0, 0, handle_of(channel), handle_of(listener)));
      return;
    }
  } else if (accept) {
    refusal = Refusal{wire::RejectReason::kServerClosing, 0, 0};
  }
  uint8_t data[wire::kRejectSize + 1 + wire::kMaxRejectText];
  std::size_t length = wire::kRejectSize;
  if (refusal.reason == wire::RejectReason::kAdmissionRefused) {
    length = wire::encode_refusal(code, text, data);
  } else {
    wire::encode_reject(refusal.reason, refusal.detail, data);
  }
  request->id.reject(data, static_cast<uint8_t>(length));
  // The request's event was acknowledged long ago: its id is destroyed with `request`, now.
  if (refusal.reason != wire::RejectReason::kAdmissionRefused) {  // Java's policy knows its own refusals
    emit(make_record(EventKind::kIncomingRejected, 0, static_cast<int32_t>(refusal.reason),
                     static_cast<int32_t>(refusal.peer_value), 0, handle_of(listener)));
  }
}

// The listener closes (or the context): requests still waiting are refused, "server closing".
void VerbsContext::refuse_awaiting_of(const VerbsListener* listener) noexcept {
  awaiting_.refuse_each(
      [listener](const AwaitingAdmission& request) { return listener == nullptr || request.listener == listener; },
      [](AwaitingAdmission& request) {
        uint8_t data[wire::kRejectSize];
        wire::encode_reject(wire::RejectReason::kServerClosing, 0, data);
        request.id.reject(data, static_cast<uint8_t>(sizeof data));
      });
}

}  // namespace jrdma
