// A context's own settings (RdmaConfig's context-wide options), as JNI's open0 receives them.
#pragma once

#include <cstdint>
#include <string>

namespace jrdma {

struct ContextOptions {
  // Every transport.
  uint64_t receive_budget = 256ull << 20;  // bytes being received by rendezvous, all channels
  // Connections accepted and not open yet, all listeners (context/pending_connections.h;
  // RdmaConfig.maxPendingConnections).
  uint32_t max_pending_connections = 64;
  // PollMode::kAdaptive: the longest spin before the loop sleeps (RdmaConfig.adaptiveSpinMicros).
  uint32_t adaptive_spin_us = 0;  // 0: learned (adaptive_spin.h)
  // Verbs: the device, its port and the completion queue's first size.
  std::string device_name;
  int port = 1;
  int cq_entries = 4096;
  // The first buffers of each shared receive queue (transports/verbs/shared_receive_queue.h); 0: a
  // receive queue per queue pair (RdmaConfig.sharedReceiveBuffers).
  uint32_t shared_receive_buffers = 512;
};

}  // namespace jrdma
