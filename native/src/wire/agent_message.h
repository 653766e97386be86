// The payloads of the remote-memory agent's messages (docs/protocol.md, "Remote-memory agent").
// Each is 24 bytes after the message header, little-endian, like the rendezvous messages; reserved
// fields must be 0.
//
// AGENT_REQUEST (asks the peer to allocate memory for us):
//   offset 0   u64 id       the requester's request id (unique among its requests waiting)
//   offset 8   u32 access   RemoteAccess bits the memory should grant (not 0)
//   offset 12  u32 reserved
//   offset 16  u64 size     bytes (at least 1)
// AGENT_REPLY (answers one request):
//   offset 0   u64 id       the request's id
//   offset 8   u32 status   AgentStatus
//   offset 12  u32 rkey     kGranted: a registration of exactly [address, address + size)
//   offset 16  u64 address  kGranted: the memory's first byte; otherwise the detail (the limit, errno)
// AGENT_RELEASE (the requester is done with memory the peer allocated for it):
//   offset 0   u64 address  as granted
//   offset 8   u32 rkey     as granted
//   offset 12  u32 reserved
//   offset 16  u64 length   the size asked for
// TOKEN (hands the peer access to memory of ours):
//   offset 0   u64 address
//   offset 8   u32 rkey     a registration of exactly [address, address + length)
//   offset 12  u32 access   RemoteAccess bits it grants (not 0)
//   offset 16  u64 length   at least 1
#pragma once

#include <cstdint>

namespace jrdma::wire {

// Rights on the wire (not ibv_access_flags: the peer's verbs constants are not ours to assume).
enum RemoteAccess : uint32_t {
  kRemoteRead = 1,
  kRemoteWrite = 2,
  kRemoteAtomic = 4,
  kAllRemoteAccess = 7,
};

enum class AgentStatus : uint32_t {
  kGranted = 0,
  kOverCount = 1,  // the requester holds the peer's limit of allocations; detail: that limit
  kOverBytes = 2,  // the allocation would exceed the peer's byte limit; detail: that limit
  kFailed = 3,     // the peer could not allocate or register it; detail: errno
  kLast = kFailed,
  // Never on the wire: the requester gave up waiting (detail: the bound in ms).
  kTimedOut = 100,
};

struct AgentRequest {
  uint64_t id = 0;
  uint32_t access = 0;
  uint64_t size = 0;
};

struct AgentReply {
  uint64_t id = 0;
  AgentStatus status = AgentStatus::kGranted;
  uint32_t rkey = 0;
  uint64_t address_or_detail = 0;
};

// AGENT_RELEASE and TOKEN: memory at address, reachable with rkey (TOKEN: with these rights).
struct MemoryToken {
  uint64_t address = 0;
  uint32_t rkey = 0;
  uint32_t access = 0;  // TOKEN only; 0 in a release
  uint64_t length = 0;
};

void encode_agent_request(const AgentRequest& request, uint8_t* out) noexcept;
void encode_agent_reply(const AgentReply& reply, uint8_t* out) noexcept;
void encode_release(const MemoryToken& release, uint8_t* out) noexcept;
void encode_token(const MemoryToken& token, uint8_t* out) noexcept;
// False when a reserved field is set, access bits are 0 or unknown, a size is 0 or a status unknown.
bool decode_agent_request(const uint8_t* payload, AgentRequest* out) noexcept;
bool decode_agent_reply(const uint8_t* payload, AgentReply* out) noexcept;
bool decode_release(const uint8_t* payload, MemoryToken* out) noexcept;
bool decode_token(const uint8_t* payload, MemoryToken* out) noexcept;

}  // namespace jrdma::wire
