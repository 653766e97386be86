// The connection handshake carried in rdma_cm private data (docs/protocol.md).
// Request (connect) and accept use the same 24-byte layout, little-endian:
//   offset 0   u32 magic    0x4D44524A ("JRDM")
//   offset 4   u16 version  protocol version (kProtocolVersion)
//   offset 6   u16 flags    0
//   offset 8   u32 credits  receive buffers the sender has posted (the peer's send credits)
//   offset 12  u32 eager    bytes per receive buffer, header included
//   offset 16  u32 max_message  largest message the sender accepts (eager - header today)
//   offset 20  u32 mtu      the path MTU the sender's configuration allows, in bytes (256..4096),
//                           or 0: no limit of its own. Both ends use the smaller one. A 20-byte
//                           handshake (before this field) reads as 0.
// A reject carries 12 bytes: magic, u16 version, u16 reason (RejectReason), u32 detail.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jrdma::wire {

constexpr uint32_t kMagic = 0x4D44524A;
constexpr uint16_t kProtocolVersion = 1;
constexpr std::size_t kHandshakeSize = 24;
constexpr std::size_t kHandshakeMinSize = 20;  // without the mtu field
constexpr std::size_t kRejectSize = 12;
constexpr uint32_t kMinEager = 64;
constexpr uint32_t kMaxEager = 1u << 24;
constexpr uint32_t kMaxCredits = 16384;

struct Handshake {
  uint16_t version = kProtocolVersion;
  uint16_t flags = 0;
  uint32_t credits = 0;
  uint32_t eager = 0;
  uint32_t max_message = 0;
  uint32_t mtu = 0;
};

enum class RejectReason : uint16_t {
  kNone = 0,
  kMalformed = 1,        // private data missing, short or not ours
  kVersionMismatch = 2,  // detail: the rejecting side's version
  kEagerMismatch = 3,    // detail: the rejecting side's eager size
  kBadCredits = 4,       // detail: the rejecting side's credit limit
  kWrongDevice = 5,      // the connection arrived on another device than the listener's context
  kServerClosing = 6,
  kResources = 7,        // detail: errno of the failed allocation
  kWrongPort = 8,        // the connection arrived on another port; detail: the configured port
  kAttributeRefused = 9, // the server's device does not keep a configured queue-pair attribute;
                         // detail: QueuePairAttribute | kept value << 8 | configured value << 20
};

void encode_handshake(const Handshake& handshake, uint8_t* out) noexcept;

// Validates magic, length and ranges; returns kNone on success, else why to reject.
RejectReason decode_handshake(const void* data, std::size_t length, Handshake* out) noexcept;

void encode_reject(RejectReason reason, uint32_t detail, uint8_t* out) noexcept;

// True when the reject data is ours (magic, length), with the reason and detail filled in.
bool decode_reject(const void* data, std::size_t length, RejectReason* reason, uint32_t* detail) noexcept;

}  // namespace jrdma::wire
