#include "wire/agent_message.h"

#include "wire/byte_order.h"

namespace jrdma::wire {

namespace {
bool valid_access(uint32_t access) noexcept { return access != 0 && (access & ~kAllRemoteAccess) == 0; }

void encode_memory(const MemoryToken& m, uint32_t word12, uint8_t* out) noexcept {
  store_le64(out, m.address);
  store_le32(out + 8, m.rkey);
  store_le32(out + 12, word12);
  store_le64(out + 16, m.length);
}

void decode_memory(const uint8_t* payload, MemoryToken* out) noexcept {
  out->address = load_le64(payload);
  out->rkey = load_le32(payload + 8);
  out->length = load_le64(payload + 16);
}
}  // namespace

void encode_agent_request(const AgentRequest& request, uint8_t* out) noexcept {
  store_le64(out, request.id);
  store_le32(out + 8, request.access);
  store_le32(out + 12, 0);
  store_le64(out + 16, request.size);
}

void encode_agent_reply(const AgentReply& reply, uint8_t* out) noexcept {
  store_le64(out, reply.id);
  store_le32(out + 8, static_cast<uint32_t>(reply.status));
  store_le32(out + 12, reply.rkey);
  store_le64(out + 16, reply.address_or_detail);
}

void encode_release(const MemoryToken& release, uint8_t* out) noexcept { encode_memory(release, 0, out); }

void encode_token(const MemoryToken& token, uint8_t* out) noexcept { encode_memory(token, token.access, out); }

bool decode_agent_request(const uint8_t* payload, AgentRequest* out) noexcept {
  uint32_t access = load_le32(payload + 8);
  uint64_t size = load_le64(payload + 16);
  if (!valid_access(access) || load_le32(payload + 12) != 0 || size == 0) return false;
  out->id = load_le64(payload);
  out->access = access;
  out->size = size;
  return true;
}

bool decode_agent_reply(const uint8_t* payload, AgentReply* out) noexcept {
  uint32_t status = load_le32(payload + 8);
  if (status > static_cast<uint32_t>(AgentStatus::kLast)) return false;
  out->id = load_le64(payload);
  out->status = static_cast<AgentStatus>(status);
  out->rkey = load_le32(payload + 12);
  out->address_or_detail = load_le64(payload + 16);
  return true;
}

bool decode_release(const uint8_t* payload, MemoryToken* out) noexcept {
  if (load_le32(payload + 12) != 0) return false;
  decode_memory(payload, out);
  out->access = 0;
  return out->length != 0;
}

bool decode_token(const uint8_t* payload, MemoryToken* out) noexcept {
  uint32_t access = load_le32(payload + 12);
  if (!valid_access(access)) return false;
  decode_memory(payload, out);
  out->access = access;
  return out->length != 0;
}

}  // namespace jrdma::wire
