// What a channel did, counted by its engine under the engine's lock (no atomics on the hot paths)
// and read by Java as one array in this order (RdmaChannel.counters()). The names are part of the
// cross-language layout (protocol/layout.h), so Java and the library cannot disagree on the order.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace jrdma {

enum class Counter : int {
  kMessagesSent,        // messages posted, eager and rendezvous
  kBytesSent,           // their payload bytes
  kMessagesReceived,    // messages received complete (to the handler or into a posted receive)
  kBytesReceived,       // their payload bytes
  kRendezvousSent,      // of the messages sent: by rendezvous (the peer read them)
  kRendezvousReceived,  // of the messages received: by rendezvous (read from the peer)
  kWrites,              // RDMA WRITEs and WRITEs with immediate posted
  kReads,               // the application's RDMA READs posted
  kAtomics,             // compare-and-swaps and fetch-and-adds posted
  kCreditStalls,        // operations that had to wait for a credit or a send slot
  kFailedOperations,    // operations reported with an error
  kCreditMessages,      // explicit CREDIT messages sent (credit returns and keepalives)
  kCount
};

constexpr const char* kCounterNames[] = {"messagesSent",   "bytesSent",          "messagesReceived", "bytesReceived",
                                         "rendezvousSent", "rendezvousReceived", "writes",           "reads",
                                         "atomics",        "creditStalls",       "failedOperations", "creditMessages"};
static_assert(sizeof(kCounterNames) / sizeof(kCounterNames[0]) == static_cast<int>(Counter::kCount));

class ChannelCounters {
 public:
  void add(Counter c, uint64_t n = 1) noexcept { values_[static_cast<int>(c)] += n; }
  const std::array<uint64_t, static_cast<int>(Counter::kCount)>& values() const noexcept { return values_; }

  static std::string layout() {
    std::string names;
    for (const char* name : kCounterNames) names += (names.empty() ? "" : ",") + std::string(name);
    return names;
  }

 private:
  std::array<uint64_t, static_cast<int>(Counter::kCount)> values_{};
};

}  // namespace jrdma
