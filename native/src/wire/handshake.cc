#include "wire/handshake.h"

#include <algorithm>
#include <cstring>

#include "wire/byte_order.h"
#include "wire/message_header.h"

namespace jrdma::wire {

void encode_handshake(const Handshake& h, uint8_t* out) noexcept {
  store_le32(out, kMagic);
  store_le16(out + 4, h.version);
  store_le16(out + 6, h.flags);
  store_le32(out + 8, h.credits);
  store_le32(out + 12, h.eager);
  store_le32(out + 16, h.max_message);
  store_le32(out + 20, h.mtu);
  store_le32(out + 24, h.rendezvous);
  store_le32(out + 28, h.keepalive);
}

RejectReason decode_handshake(const void* data, std::size_t length, Handshake* out) noexcept {
  // rdma_cm pads private data with zeros up to the transport's size: accept longer, never shorter.
  if (data == nullptr || length < kHandshakeSize) {
    // Earlier versions send 20, 24 (1) or 28 (2) bytes: say so rather than "malformed".
    if (data != nullptr && length >= 8 && load_le32(static_cast<const uint8_t*>(data)) == kMagic) {
      out->version = load_le16(static_cast<const uint8_t*>(data) + 4);
      if (out->version != kProtocolVersion) return RejectReason::kVersionMismatch;
    }
    return RejectReason::kMalformed;
  }
  const auto* p = static_cast<const uint8_t*>(data);
  if (load_le32(p) != kMagic) return RejectReason::kMalformed;
  Handshake h;
  h.version = load_le16(p + 4);
  h.flags = load_le16(p + 6);
  h.credits = load_le32(p + 8);
  h.eager = load_le32(p + 12);
  h.max_message = load_le32(p + 16);
  h.mtu = load_le32(p + 20);
  h.rendezvous = load_le32(p + 24);
  h.keepalive = load_le32(p + 28);
  if (h.version != kProtocolVersion) {
    *out = h;
    return RejectReason::kVersionMismatch;
  }
  if ((h.flags & ~(kFlagAuthenticate | kFlagSharedMemory)) != 0) return RejectReason::kMalformed;
  if (h.credits == 0 || h.credits > kMaxCredits) return RejectReason::kBadCredits;
  if (h.eager < kMinEager || h.eager > kMaxEager) return RejectReason::kEagerMismatch;
  if (h.max_message < h.eager - kHeaderSize || h.max_message > kMaxMessage) return RejectReason::kMalformed;
  if (h.rendezvous == 0 || h.rendezvous > kMaxRendezvous) return RejectReason::kMalformed;
  if (h.keepalive != 0 && (h.keepalive < kMinKeepalive || h.keepalive > kMaxKeepalive)) return RejectReason::kMalformed;
  if (h.mtu != 0 && h.mtu != 256 && h.mtu != 512 && h.mtu != 1024 && h.mtu != 2048 && h.mtu != 4096) {
    return RejectReason::kMalformed;
  }
  *out = h;
  return RejectReason::kNone;
}

void encode_reject(RejectReason reason, uint32_t detail, uint8_t* out) noexcept {
  store_le32(out, kMagic);
  store_le16(out + 4, kProtocolVersion);
  store_le16(out + 6, static_cast<uint16_t>(reason));
  store_le32(out + 8, detail);
}

bool decode_reject(const void* data, std::size_t length, RejectReason* reason, uint32_t* detail) noexcept {
  if (data == nullptr || length < kRejectSize) return false;
  const auto* p = static_cast<const uint8_t*>(data);
  if (load_le32(p) != kMagic) return false;
  uint16_t code = load_le16(p + 6);
  if (code < 1 || code > static_cast<uint16_t>(RejectReason::kLastReason)) return false;
  *reason = static_cast<RejectReason>(code);
  *detail = load_le32(p + 8);
  return true;
}

void encode_connect_data(const uint8_t* data, std::size_t length, uint8_t* out) noexcept {
  out[0] = static_cast<uint8_t>(length);
  if (length > 0) std::memcpy(out + 1, data, length);
}

bool decode_connect_data(const void* private_data, std::size_t length, std::vector<uint8_t>* out) {
  out->clear();
  if (private_data == nullptr || length <= kHandshakeSize) return true;  // none
  const auto* p = static_cast<const uint8_t*>(private_data) + kHandshakeSize;
  std::size_t n = p[0];
  if (n > kMaxConnectData || kHandshakeSize + 1 + n > length) return false;
  out->assign(p + 1, p + 1 + n);
  return true;
}

std::size_t encode_refusal(uint32_t code, const std::string& text, uint8_t* out) noexcept {
  encode_reject(RejectReason::kAdmissionRefused, code, out);
  std::size_t n = std::min(text.size(), kMaxRejectText);
  out[kRejectSize] = static_cast<uint8_t>(n);
  std::memcpy(out + kRejectSize + 1, text.data(), n);
  return kRejectSize + 1 + n;
}

std::string decode_refusal_text(const void* data, std::size_t length) {
  if (data == nullptr || length <= kRejectSize) return "";
  const auto* p = static_cast<const uint8_t*>(data) + kRejectSize;
  std::size_t n = p[0];
  if (n > kMaxRejectText || kRejectSize + 1 + n > length) return "";
  return std::string(reinterpret_cast<const char*>(p + 1), n);
}

}  // namespace jrdma::wire
