// libFuzzer target: every decoder of peer bytes (handshake, reject, message header, rendezvous
// and agent control payloads). Besides ASan/UBSan, checks that what decodes re-encodes to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "wire/agent_message.h"
#include "wire/control_message.h"
#include "wire/handshake.h"
#include "wire/message_header.h"

using namespace jrdma::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const uint8_t selector = data[0];
  // The decoders get exactly the bytes the fuzzer made (a copy: ASan sees any overread).
  std::vector<uint8_t> bytes(data + 1, data + size);
  switch (selector % 4) {
    case 0: {
      Handshake h;
      if (decode_handshake(bytes.data(), bytes.size(), &h) == RejectReason::kNone) {
        uint8_t again[kHandshakeSize];
        encode_handshake(h, again);
        if (std::memcmp(again, bytes.data(), kHandshakeSize) != 0) std::abort();
      }
      RejectReason reason;
      uint32_t detail;
      decode_reject(bytes.data(), bytes.size(), &reason, &detail);
      std::vector<uint8_t> connect_data;
      if (decode_connect_data(bytes.data(), bytes.size(), &connect_data) && connect_data.size() > kMaxConnectData) {
        std::abort();
      }
      if (decode_refusal_text(bytes.data(), bytes.size()).size() > kMaxRejectText) std::abort();
      break;
    }
    case 1: {
      // The capacity and the credit bound come from the input too.
      std::size_t capacity = selector < 128 ? bytes.size() : bytes.size() / 2;
      MessageHeader h;
      if (decode_header(bytes.data(), bytes.size(), capacity, selector, &h) == DecodeStatus::kOk) {
        if (kHeaderSize + h.length != bytes.size() || h.length > capacity - kHeaderSize) std::abort();
        uint8_t again[kHeaderSize];
        encode_header(h, again);
        if (std::memcmp(again, bytes.data(), kHeaderSize) != 0) std::abort();
      }
      break;
    }
    default: {
      if (bytes.size() < kControlPayloadSize) return 0;
      std::vector<uint8_t> payload(bytes.begin(), bytes.begin() + kControlPayloadSize);
      uint8_t again[kControlPayloadSize];
      RendezvousStart start;
      if (decode_start(payload.data(), &start)) {
        encode_start(start, again);
        if (std::memcmp(again, payload.data(), kControlPayloadSize) != 0) std::abort();
      }
      RendezvousDone done;
      if (decode_done(payload.data(), &done)) {
        encode_done(done, again);
        if (std::memcmp(again, payload.data(), kControlPayloadSize) != 0) std::abort();
      }
      AgentRequest request;
      if (decode_agent_request(payload.data(), &request)) {
        encode_agent_request(request, again);
        if (std::memcmp(again, payload.data(), kControlPayloadSize) != 0) std::abort();
      }
      AgentReply reply;
      if (decode_agent_reply(payload.data(), &reply)) {
        encode_agent_reply(reply, again);
        if (std::memcmp(again, payload.data(), kControlPayloadSize) != 0) std::abort();
      }
      MemoryToken memory;
      if (decode_release(payload.data(), &memory)) {
        encode_release(memory, again);
        if (std::memcmp(again, payload.data(), kControlPayloadSize) != 0) std::abort();
      }
      if (decode_token(payload.data(), &memory)) {
        encode_token(memory, again);
        if (std::memcmp(again, payload.data(), kControlPayloadSize) != 0) std::abort();
      }
      break;
    }
  }
  return 0;
}
