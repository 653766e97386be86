// The fixed header in front of every two-sided message (docs/protocol.md, byte by byte).
// Little-endian on the wire.
//   offset 0  u8   type     (MessageType)
//   offset 1  u8   flags    (0; reserved, must be 0)
//   offset 2  u16  credits  receive credits returned to the peer
//   offset 4  u32  length   payload bytes after the header
//   offset 8  u64  id       sender's message sequence number
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace jrdma::wire {

constexpr std::size_t kHeaderSize = 16;

enum class MessageType : uint8_t {
  kData = 1,             // payload for the peer's handler
  kCredit = 2,           // returns credits only; no payload
  kRendezvousStart = 3,  // a large message: where to read it (wire/control_message.h)
  kRendezvousDone = 4,   // the answer to a kRendezvousStart
  kAgentRequest = 5,     // allocate memory for the sender (wire/agent_message.h)
  kAgentReply = 6,       // the answer to a kAgentRequest
  kAgentRelease = 7,     // memory allocated for the sender is no longer needed
  kToken = 8,            // access to memory of the sender's
  kAuth = 9,             // the sender's nonce and proof of the pre-shared key (wire/handshake.h)
  kLastType = kAuth,
};

// The AUTH payload: the sender's nonce, then HMAC-SHA256 proof (docs/protocol.md, "Authentication").
constexpr std::size_t kNonceSize = 16;
constexpr std::size_t kProofSize = 32;
constexpr std::size_t kAuthPayloadSize = kNonceSize + kProofSize;

struct MessageHeader {
  MessageType type = MessageType::kData;
  uint8_t flags = 0;
  uint16_t credits = 0;
  uint32_t length = 0;
  uint64_t id = 0;
};

// Writes the header into out[0, kHeaderSize).
void encode_header(const MessageHeader& header, uint8_t* out) noexcept;
// The credits field of an encoded header: filled in when the message is posted.
void set_credits(uint16_t credits, uint8_t* header) noexcept;
// The id field of an encoded header.
uint64_t decode_id(const uint8_t* header) noexcept;

enum class DecodeStatus {
  kOk,
  kTooShort,  // fewer bytes than a header
  kUnknownType,
  kReservedFlags,
  kLengthMismatch,  // length field != received bytes - header
  kTooLong,         // length field > the receive buffer's payload capacity
  kCreditsTooMany,  // more credits returned than the peer can have taken
  kCreditWithPayload,
  kControlLength,  // a control message whose payload is not its type's size (24 bytes; AUTH 48)
};

// Decodes and validates a received message of `received` bytes in a buffer of `capacity` bytes.
// `max_credits` bounds the credits field (the sender's receive queue depth).
DecodeStatus decode_header(const uint8_t* data, std::size_t received, std::size_t capacity, uint32_t max_credits,
                           MessageHeader* out) noexcept;

}  // namespace jrdma::wire
