#include "wire/message_header.h"

#include <cstring>

#include "wire/byte_order.h"
#include "wire/control_message.h"

namespace jrdma::wire {

void encode_header(const MessageHeader& header, uint8_t* out) noexcept {
  out[0] = static_cast<uint8_t>(header.type);
  out[1] = header.flags;
  store_le16(out + 2, header.credits);
  store_le32(out + 4, header.length);
  store_le64(out + 8, header.id);
}

void set_credits(uint16_t credits, uint8_t* header) noexcept { store_le16(header + 2, credits); }

uint64_t decode_id(const uint8_t* header) noexcept { return load_le64(header + 8); }

DecodeStatus decode_header(const uint8_t* data, std::size_t received, std::size_t capacity, uint32_t max_credits,
                           MessageHeader* out) noexcept {
  if (received < kHeaderSize || capacity < kHeaderSize) return DecodeStatus::kTooShort;
  MessageHeader h;
  uint8_t type = data[0];
  if (type < static_cast<uint8_t>(MessageType::kData) || type > static_cast<uint8_t>(MessageType::kLastType)) {
    return DecodeStatus::kUnknownType;
  }
  h.type = static_cast<MessageType>(type);
  h.flags = data[1];
  if (h.flags != 0) return DecodeStatus::kReservedFlags;
  h.credits = load_le16(data + 2);
  h.length = load_le32(data + 4);
  h.id = load_le64(data + 8);
  if (h.length > capacity - kHeaderSize) return DecodeStatus::kTooLong;
  if (h.length != received - kHeaderSize) return DecodeStatus::kLengthMismatch;
  if (h.credits > max_credits) return DecodeStatus::kCreditsTooMany;
  if (h.type == MessageType::kCredit && h.length != 0) return DecodeStatus::kCreditWithPayload;
  bool control = h.type != MessageType::kData && h.type != MessageType::kCredit;  // a fixed payload each
  std::size_t expected = h.type == MessageType::kAuth ? kAuthPayloadSize : kControlPayloadSize;
  if (control && h.length != expected) return DecodeStatus::kControlLength;
  *out = h;
  return DecodeStatus::kOk;
}

}  // namespace jrdma::wire
