// What a context's channels are configured with, as one record: org.jrdma.impl.ChannelSettings
// writes it (native byte order, a direct buffer) from RdmaConfig and the device selection, and
// listen0 / createChannel0 read it (jni/channel_natives.cc). Java owns every default; the layout is
// checked at load (jni/layout.h), so a field added on one side only, or two swapped, makes the
// library unavailable instead of configuring the wrong thing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/record_layout.h"
#include "protocol/channel_engine.h"

namespace jrdma {

// The record's two parts: what every transport's channels use (the engine's options, the
// listeners' bound), then what only the verbs transport's queue pairs use.
#define JRDMA_CHANNEL_SETTINGS_NEUTRAL(X) \
  X(uint32_t, depth)                /* RdmaConfig.queueDepth */ \
  X(uint32_t, eager)                /* eagerSize */ \
  X(uint32_t, max_message)          /* maxMessageSize */ \
  X(uint32_t, rendezvous)           /* rendezvousTransfers */ \
  X(uint32_t, max_pending)          /* maxPendingConnections */ \
  X(uint32_t, keepalive_ms)         /* keepaliveMillis (0: off) */ \
  X(uint32_t, operation_timeout_ms) /* operationTimeoutMillis (0: off) */ \
  X(uint32_t, agent_timeout_ms)     /* agentLimits().timeoutMillis() */ \
  X(uint64_t, agent_quota_bytes)    /* agentLimits().quotaBytes() */ \
  X(uint32_t, agent_quota_count)    /* agentLimits().quotaCount() */ \
  X(uint32_t, auth_timeout_ms)      /* connectTimeoutMillis: the time a peer has for its proof */ \
  X(uint32_t, graceful_close_ms)    /* how long a close waits for posted operations */ \
  X(uint32_t, read_chunk)           /* rendezvousChunkSize: bytes per READ of a rendezvous transfer */
#define JRDMA_CHANNEL_SETTINGS_VERBS(X) \
  X(uint32_t, max_inline)    /* maxInline */ \
  X(uint32_t, timeout)       /* timeout: the ACK timeout exponent */ \
  X(uint32_t, retry_count)   /* retryCount */ \
  X(uint32_t, rnr_retry)     /* rnrRetry */ \
  X(uint32_t, port)          /* the selected port */ \
  X(int32_t, gid_index)      /* the selected GID index, -1: rdma_cm's choice for the address */ \
  X(uint32_t, mtu)           /* the selected path MTU in bytes */ \
  X(uint32_t, pkey_index)    /* pkeyIndex */ \
  X(uint32_t, service_level) /* serviceLevel */ \
  X(uint32_t, traffic_class) /* trafficClass */

struct ChannelSettings {
  JRDMA_CHANNEL_SETTINGS_NEUTRAL(JRDMA_RECORD_MEMBER)
  JRDMA_CHANNEL_SETTINGS_VERBS(JRDMA_RECORD_MEMBER)
};
static_assert(offsetof(ChannelSettings, agent_quota_bytes) % 8 == 0, "Java aligns each field to its size as C++ does");

// "settings size=96,depth=0,eager=4,...": every field in order, named as Java names them.
inline std::string channel_settings_layout() {
  std::string layout = "settings size=" + std::to_string(sizeof(ChannelSettings));
#define JRDMA_RECORD ChannelSettings
  JRDMA_CHANNEL_SETTINGS_NEUTRAL(JRDMA_RECORD_OFFSET)
  JRDMA_CHANNEL_SETTINGS_VERBS(JRDMA_RECORD_OFFSET)
#undef JRDMA_RECORD
  return layout;
}

// The transport-neutral part as a channel engine's options (every transport). The pre-shared key
// and what the context adds (the budget, the READs outstanding, a device's message size limit)
// are not in the record.
inline EngineOptions engine_options(const ChannelSettings& s) {
  EngineOptions e;
  e.depth = s.depth;
  e.eager = s.eager;
  e.max_message = s.max_message;
  e.rendezvous = s.rendezvous;
  e.keepalive_ms = s.keepalive_ms;
  e.operation_timeout_ms = s.operation_timeout_ms;
  e.agent_timeout_ms = s.agent_timeout_ms;
  e.agent_quota_bytes = s.agent_quota_bytes;
  e.agent_quota_count = s.agent_quota_count;
  e.auth_timeout_ms = s.auth_timeout_ms;
  e.graceful_close_ms = s.graceful_close_ms;
  e.read_chunk = s.read_chunk;
  return e;
}

}  // namespace jrdma
