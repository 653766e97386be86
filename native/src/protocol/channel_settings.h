// What a context's channels are configured with, as one record: org.jrdma.impl.ChannelSettings
// writes it (native byte order, a direct buffer) from RdmaConfig and the device selection, and
// listen0 / createChannel0 read it (jni/channel_natives.cc). Java owns every default; the layout is
// checked at load (protocol/layout.h), so a field added on one side only, or two swapped, makes the
// library unavailable instead of configuring the wrong thing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace jrdma {

struct ChannelSettings {
  uint32_t depth;                 // RdmaConfig.queueDepth
  uint32_t eager;                 // eagerSize
  uint32_t max_inline;            // maxInline
  uint32_t timeout;               // timeout: the ACK timeout exponent
  uint32_t retry_count;           // retryCount
  uint32_t rnr_retry;             // rnrRetry
  uint32_t port;                  // the selected port
  int32_t gid_index;              // the selected GID index, -1: rdma_cm's choice for the address
  uint32_t mtu;                   // the selected path MTU in bytes
  uint32_t pkey_index;            // pkeyIndex
  uint32_t service_level;         // serviceLevel
  uint32_t traffic_class;         // trafficClass
  uint32_t max_message;           // maxMessageSize
  uint32_t rendezvous;            // rendezvousTransfers
  uint32_t max_pending;           // maxPendingConnections
  uint32_t keepalive_ms;          // keepaliveMillis (0: off)
  uint32_t operation_timeout_ms;  // operationTimeoutMillis (0: off)
  uint32_t agent_timeout_ms;      // agentLimits().timeoutMillis()
  uint64_t agent_quota_bytes;     // agentLimits().quotaBytes()
  uint32_t agent_quota_count;     // agentLimits().quotaCount()
  uint32_t auth_timeout_ms;       // connectTimeoutMillis: the time a peer has for its proof
};
static_assert(sizeof(ChannelSettings) == 88 && offsetof(ChannelSettings, agent_quota_bytes) == 72);

#define JRDMA_SETTINGS_FIELD(name) (std::string(",") + #name + "=" + std::to_string(offsetof(ChannelSettings, name)))

inline std::string channel_settings_layout() {
  return "settings size=" + std::to_string(sizeof(ChannelSettings)) + JRDMA_SETTINGS_FIELD(depth) +
         JRDMA_SETTINGS_FIELD(eager) + JRDMA_SETTINGS_FIELD(max_inline) + JRDMA_SETTINGS_FIELD(timeout) +
         JRDMA_SETTINGS_FIELD(retry_count) + JRDMA_SETTINGS_FIELD(rnr_retry) + JRDMA_SETTINGS_FIELD(port) +
         JRDMA_SETTINGS_FIELD(gid_index) + JRDMA_SETTINGS_FIELD(mtu) + JRDMA_SETTINGS_FIELD(pkey_index) +
         JRDMA_SETTINGS_FIELD(service_level) + JRDMA_SETTINGS_FIELD(traffic_class) +
         JRDMA_SETTINGS_FIELD(max_message) + JRDMA_SETTINGS_FIELD(rendezvous) + JRDMA_SETTINGS_FIELD(max_pending) +
         JRDMA_SETTINGS_FIELD(keepalive_ms) + JRDMA_SETTINGS_FIELD(operation_timeout_ms) +
         JRDMA_SETTINGS_FIELD(agent_timeout_ms) + JRDMA_SETTINGS_FIELD(agent_quota_bytes) +
         JRDMA_SETTINGS_FIELD(agent_quota_count) + JRDMA_SETTINGS_FIELD(auth_timeout_ms);
}

#undef JRDMA_SETTINGS_FIELD

}  // namespace jrdma
