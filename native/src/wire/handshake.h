// The connection handshake carried in rdma_cm private data (docs/protocol.md).
// Request (connect) and accept use the same 32-byte layout, little-endian:
//   offset 0   u32 magic    0x4D44524A ("JRDM")
//   offset 4   u16 version  protocol version (kProtocolVersion)
//   offset 6   u16 flags    bit 0 (kFlagAuthenticate): the sender holds a pre-shared key and
//                           requires mutual authentication; bit 1 (kFlagSharedMemory, TCP set-up
//                           only): a client offers the shared-memory rings it named, a server
//                           took them; other bits 0
//   offset 8   u32 credits  receive buffers the sender has posted (the peer's send credits)
//   offset 12  u32 eager    bytes per receive buffer, header included
//   offset 16  u32 max_message  largest message the sender accepts (eager - header .. 2^31 - 1);
//                           larger than the eager payload: by rendezvous
//   offset 20  u32 mtu      the path MTU the sender's configuration allows, in bytes (256..4096),
//                           or 0: no limit of its own. Both ends use the smaller one.
//   offset 24  u32 rendezvous  rendezvous transfers the sender receives at a time (1..kMaxRendezvous);
//                           the peer starts no more, a START beyond it is a protocol error
//   offset 28  u32 keepalive  milliseconds after which the sender declares a silent peer gone
//                           (kMinKeepalive..kMaxKeepalive), or 0: it does not watch. The peer sends
//                           something at least every keepalive / 3 ms.
// An accept with kFlagAuthenticate carries the server's 16-byte nonce after the handshake.
// A connect request may carry the client's connect data after the handshake (for the server's
// admission hook): offset 32 u8 length (0..kMaxConnectData), then that many bytes. rdma_cm pads
// private data with zeros, so a request without it reads as length 0.
// A reject carries 12 bytes: magic, u16 version, u16 reason (RejectReason), u32 detail; an
// admission refusal adds u8 length and that many bytes of UTF-8 text (the server's reason).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace jrdma::wire {

constexpr uint32_t kMagic = 0x4D44524A;
// 2: rendezvous (max_message above the eager payload); 3: keepalive; 4: remote-memory agent and
// tokens, pre-shared-key authentication (flag, AUTH), connect data for admission; 5: AUTH
// confirmation, shared-memory handover, RINGS FOLLOW; 6: SOURCE AHEAD over TCP and shared memory
constexpr uint16_t kProtocolVersion = 6;
constexpr std::size_t kHandshakeSize = 32;
constexpr std::size_t kRejectSize = 12;
constexpr uint16_t kFlagAuthenticate = 1;
constexpr uint16_t kFlagSharedMemory = 2;
constexpr std::size_t kShmTicketSize =
    32;  // a TCP hello with kFlagSharedMemory ends with the rings' ticket (shm_handover.h)
constexpr std::size_t kAcceptWithNonceSize = kHandshakeSize + 16;
constexpr std::size_t kMaxRequestSize = 56;  // rdma_cm's limit for a connect request's private data (RC)
constexpr std::size_t kMaxConnectData = kMaxRequestSize - kHandshakeSize - 1;  // 23
constexpr std::size_t kMaxRejectText = 120;  // within rdma_cm's 148 bytes of reject private data
constexpr uint32_t kMinEager = 64;
constexpr uint32_t kMaxEager = 1u << 24;
constexpr uint32_t kMaxCredits = 16384;
constexpr uint32_t kMaxMessage = 0x7fffffff;  // Java's int lengths
constexpr uint32_t kMaxRendezvous = 1024;
constexpr uint32_t kMinKeepalive = 1000;     // ms: ten of the loop's 100 ms ticks
constexpr uint32_t kMaxKeepalive = 3600000;  // ms

struct Handshake {
  uint16_t version = kProtocolVersion;
  uint16_t flags = 0;
  uint32_t credits = 0;
  uint32_t eager = 0;
  uint32_t max_message = 0;
  uint32_t mtu = 0;
  uint32_t rendezvous = 0;
  uint32_t keepalive = 0;  // ms; 0: the sender does not watch for silence
};

enum class RejectReason : uint16_t {
  kNone = 0,
  kMalformed = 1,        // private data missing, short or not ours, or a field out of range
  kVersionMismatch = 2,  // detail: the rejecting side's version
  kEagerMismatch = 3,    // detail: the rejecting side's eager size
  kBadCredits = 4,       // detail: the rejecting side's credit limit
  kWrongDevice = 5,      // the connection arrived on another device than the listener's context
  kServerClosing = 6,
  kResources = 7,          // detail: errno of the failed allocation
  kWrongPort = 8,          // the connection arrived on another port; detail: the configured port
  kAttributeRefused = 9,   // the server's device does not keep a configured queue-pair attribute;
                           // detail: QueuePairAttribute | kept value << 8 | configured value << 20
  kTooManyPending = 10,    // the listener or its context holds its limit of accepted connection requests
                           // not established yet (RdmaConfig.maxPendingConnections); detail: that limit
  kAdmissionRefused = 11,  // the server's admission policy said no; detail: its code, then its text
  kAuthMismatch = 12,      // one side holds a pre-shared key, the other not; detail: 1 the server
                           // requires authentication, 0 the server has no key
  kNoSharedMemory = 13,    // the server takes shared-memory peers only (transport shm) and this
                           // client offered none, or rings the server could not open (another host)
  kLastReason = kNoSharedMemory,
};

void encode_handshake(const Handshake& handshake, uint8_t* out) noexcept;

// Validates magic, length and ranges; returns kNone on success, else why to reject.
RejectReason decode_handshake(const void* data, std::size_t length, Handshake* out) noexcept;

// Writes [length, data...] at out (kMaxConnectData bytes at most; the caller checked).
void encode_connect_data(const uint8_t* data, std::size_t length, uint8_t* out) noexcept;
// The connect data after a request's handshake; false when its length does not fit the private data.
bool decode_connect_data(const void* private_data, std::size_t length, std::vector<uint8_t>* out);

void encode_reject(RejectReason reason, uint32_t detail, uint8_t* out) noexcept;
// An admission refusal with its text (cut at kMaxRejectText bytes); returns the bytes written.
std::size_t encode_refusal(uint32_t code, const std::string& text, uint8_t* out) noexcept;
// The text of an admission refusal ("" when there is none or it does not fit).
std::string decode_refusal_text(const void* data, std::size_t length);

// True when the reject data is ours (magic, length), with the reason and detail filled in.
bool decode_reject(const void* data, std::size_t length, RejectReason* reason, uint32_t* detail) noexcept;

}  // namespace jrdma::wire
