// The TCP transport's frames: what a reliable-connected queue pair carries, as one byte stream.
// Every frame is a 48-byte header, little-endian like the rest of the wire, followed for kSend, kWrite,
// kWriteImmediate, kSourceAhead and a successful kReadResponse by exactly `length` payload bytes. Requests that
// act on the peer's memory name it by key, address and length; the peer checks all three against
// what it registered (TcpMemoryTable) before it touches a byte, and answers each request in order.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jrdma::tcp {

enum class FrameType : uint8_t {
  kSend = 1,            // payload into the peer's next posted receive
  kWrite = 2,           // payload into [address, +length) under key; answered by kWriteResponse
  kWriteImmediate = 3,  // kWrite that also consumes a posted receive (immediate)
  kReadRequest = 4,     // [address, +length) under key, answered by kReadResponse
  kReadResponse = 5,    // status; the bytes when 0
  kAtomicRequest = 6,   // 8 bytes at address under key: fetch-add (operand0) or compare-swap
  kAtomicResponse = 7,  // status; operand0 = the previous value
  kWriteResponse = 8,   // status of a kWrite or kWriteImmediate
  kRingsFollow = 9,     // shared memory: this direction's next frames are in the rings, the socket
                        // carries wake-ups only (sent once, after the peer proved itself)
  kSourceAhead = 10,    // the bytes of a rendezvous source [address, +length) under key, sent before
                        // the START that announces it; the peer serves its READ from them (sources_ahead.h)
};

enum class AtomicOp : uint8_t { kFetchAndAdd = 0, kCompareAndSwap = 1 };

// ibv_wc_status values the transport completes with (the engine speaks them for every transport;
// success and WR_FLUSH_ERR are the engine's own kStatusSuccess and kStatusFlushed).
constexpr uint8_t kStatusRemoteInvalidRequest = 9;  // IBV_WC_REM_INV_REQ_ERR
constexpr uint8_t kStatusRemoteAccess = 10;         // IBV_WC_REM_ACCESS_ERR
constexpr uint8_t kStatusRetryExceeded = 12;        // IBV_WC_RETRY_EXC_ERR: the connection failed

struct Frame {
  FrameType type = FrameType::kSend;
  uint8_t status = 0;  // responses
  AtomicOp atomic = AtomicOp::kFetchAndAdd;
  uint32_t length = 0;     // payload bytes (kSend, writes, read responses) or bytes asked (kReadRequest)
  uint32_t key = 0;        // the peer's key of the memory acted on
  uint32_t immediate = 0;  // kWriteImmediate
  uint64_t address = 0;    // in the peer's memory
  uint64_t request = 0;    // a response carries its request's number
  uint64_t operand0 = 0;   // compare or add; kAtomicResponse: the previous value
  uint64_t operand1 = 0;   // swap
};

constexpr std::size_t kFrameHeaderSize = 48;

void encode_frame(const Frame& frame, uint8_t* out) noexcept;
// False for a header no peer of ours sends: unknown type or atomic op, a status on a request, a
// payload on a frame that has none.
bool decode_frame(const uint8_t* in, Frame* out) noexcept;
// Whether `length` payload bytes follow this frame's header.
bool carries_payload(const Frame& frame) noexcept;

}  // namespace jrdma::tcp
