// The payloads of the rendezvous control messages (docs/protocol.md). Each is 24 bytes after the
// message header, little-endian; reserved fields must be 0.
//
// RENDEZVOUS_START (sender -> receiver, in the message stream):
//   offset 0   u64 address  where the source bytes lie in the sender's memory
//   offset 8   u32 rkey     a registration of exactly [address, address + length), remote read
//                           only, revoked when the transfer ends
//   offset 12  u32 reserved
//   offset 16  u64 length   bytes of the message (1 .. the receiver's max_message)
// RENDEZVOUS_DONE (receiver -> sender, answers one START):
//   offset 0   u64 id       the START's message id
//   offset 8   u32 status   RendezvousStatus
//   offset 12  u32 reserved
//   offset 16  u64 detail   kBufferTooSmall: the posted buffer's size; kReceiverFailed: errno
#pragma once

#include <cstddef>
#include <cstdint>

namespace jrdma::wire {

constexpr std::size_t kControlPayloadSize = 24;

struct RendezvousStart {
  uint64_t address = 0;
  uint32_t rkey = 0;
  uint64_t length = 0;
};

enum class RendezvousStatus : uint32_t {
  kDone = 0,            // the receiver has every byte: the source may be reused
  kBufferTooSmall = 1,  // the receive posted for it is smaller than the message; nothing was read
  kReceiverFailed = 2,  // the receiver could not take it (no memory); nothing was delivered
};

struct RendezvousDone {
  uint64_t id = 0;
  RendezvousStatus status = RendezvousStatus::kDone;
  uint64_t detail = 0;
};

void encode_start(const RendezvousStart& start, uint8_t* out) noexcept;
void encode_done(const RendezvousDone& done, uint8_t* out) noexcept;
// False when a reserved field is not 0 or a status is unknown.
bool decode_start(const uint8_t* payload, RendezvousStart* out) noexcept;
bool decode_done(const uint8_t* payload, RendezvousDone* out) noexcept;

}  // namespace jrdma::wire
