#include "wire/control_message.h"

#include "wire/byte_order.h"

namespace jrdma::wire {

void encode_start(const RendezvousStart& start, uint8_t* out) noexcept {
  store_le64(out, start.address);
  store_le32(out + 8, start.rkey);
  store_le32(out + 12, 0);
  store_le64(out + 16, start.length);
}

void encode_done(const RendezvousDone& done, uint8_t* out) noexcept {
  store_le64(out, done.id);
  store_le32(out + 8, static_cast<uint32_t>(done.status));
  store_le32(out + 12, 0);
  store_le64(out + 16, done.detail);
}

bool decode_start(const uint8_t* payload, RendezvousStart* out) noexcept {
  if (load_le32(payload + 12) != 0) return false;
  out->address = load_le64(payload);
  out->rkey = load_le32(payload + 8);
  out->length = load_le64(payload + 16);
  return true;
}

bool decode_done(const uint8_t* payload, RendezvousDone* out) noexcept {
  uint32_t status = load_le32(payload + 8);
  if (load_le32(payload + 12) != 0 || status > static_cast<uint32_t>(RendezvousStatus::kReceiverFailed)) return false;
  out->id = load_le64(payload);
  out->status = static_cast<RendezvousStatus>(status);
  out->detail = load_le64(payload + 16);
  return true;
}

}  // namespace jrdma::wire
