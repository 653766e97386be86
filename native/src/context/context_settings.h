// What a context is opened with, as one record: org.jrdma.impl.ContextSettings writes it (native
// byte order, a direct buffer) from RdmaConfig and the transport and device chosen, and open0 reads
// it (jni/context_natives.cc); the device's name comes beside it, as a string. Java owns every
// default; the layout is checked at load (jni/layout.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "base/record_layout.h"
#include "context/context_options.h"

namespace jrdma {

// The record's two parts: what every transport's context uses, then what only the verbs context uses.
#define JRDMA_CONTEXT_SETTINGS_NEUTRAL(X) \
  X(uint64_t, receive_budget)          /* RdmaConfig.receiveBudget */ \
  X(uint32_t, max_pending_connections) /* maxPendingConnections, all listeners */ \
  X(uint32_t, adaptive_spin_us)        /* adaptiveSpinMicros */ \
  X(int32_t, transport)                /* org.jrdma.Transport's ordinal, as opened */
#define JRDMA_CONTEXT_SETTINGS_VERBS(X) \
  X(uint32_t, port)                   /* the selected port */ \
  X(uint32_t, cq_entries)             /* completionQueueSize, or Java's default */ \
  X(uint32_t, shared_receive_buffers) /* sharedReceiveBuffers (0: a receive queue per queue pair) */

struct ContextSettings {
  JRDMA_CONTEXT_SETTINGS_NEUTRAL(JRDMA_RECORD_MEMBER)
  JRDMA_CONTEXT_SETTINGS_VERBS(JRDMA_RECORD_MEMBER)
};

// "context settings size=32,receive_budget=0,...": every field in order, named as Java names them.
inline std::string context_settings_layout() {
  std::string layout = "context settings size=" + std::to_string(sizeof(ContextSettings));
#define JRDMA_RECORD ContextSettings
  JRDMA_CONTEXT_SETTINGS_NEUTRAL(JRDMA_RECORD_OFFSET)
  JRDMA_CONTEXT_SETTINGS_VERBS(JRDMA_RECORD_OFFSET)
#undef JRDMA_RECORD
  return layout;
}

inline ContextOptions context_options(const ContextSettings& s, std::string device_name) {
  ContextOptions o;
  o.receive_budget = s.receive_budget;
  o.max_pending_connections = s.max_pending_connections;
  o.adaptive_spin_us = s.adaptive_spin_us;
  o.device_name = std::move(device_name);
  o.port = static_cast<int>(s.port);
  o.cq_entries = static_cast<int>(s.cq_entries);
  o.shared_receive_buffers = s.shared_receive_buffers;
  return o;
}

}  // namespace jrdma
