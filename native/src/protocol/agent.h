// The remote-memory agent's state of one channel (docs/protocol.md, "Remote-memory agent"): our
// requests waiting for the peer's answer, the peer's requests waiting for Java's allocation, and
// what we allocated for the peer — bounded by a quota of bytes and allocations, so a peer cannot
// make us pin more than the configuration allows. Not thread-safe: the engine's lock guards it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "wire/agent_message.h"

namespace jrdma {

class AgentState {
 public:
  using Clock = std::chrono::steady_clock;

  // A request of ours; `abandoned` once it timed out (a late grant is released at once).
  struct Outgoing {
    uint64_t id;
    uint64_t size;
    Clock::time_point deadline;
    bool abandoned;
  };
  // Memory we allocated for the peer (or are allocating: rkey 0 and address 0 until Java answers).
  struct Served {
    uint64_t id;
    uint64_t size;
    uint64_t address;
    uint32_t rkey;
    bool granted;
  };

  AgentState(uint64_t quota_bytes, uint32_t quota_count) : quota_bytes_(quota_bytes), quota_count_(quota_count) {}

  // --- our requests ---
  void add_outgoing(uint64_t id, uint64_t size, Clock::time_point deadline) {
    outgoing_.push_back(Outgoing{id, size, deadline, false});
  }
  Outgoing* find_outgoing(uint64_t id) noexcept {
    auto it = std::find_if(outgoing_.begin(), outgoing_.end(), [id](const Outgoing& o) { return o.id == id; });
    return it == outgoing_.end() ? nullptr : &*it;
  }
  void remove_outgoing(uint64_t id) {
    outgoing_.erase(std::remove_if(outgoing_.begin(), outgoing_.end(), [id](const Outgoing& o) { return o.id == id; }),
                    outgoing_.end());
  }
  std::vector<Outgoing>& outgoing() noexcept { return outgoing_; }
  // Requests still waiting for an answer someone wants (for the operation-timeout watch).
  bool awaiting() const noexcept {
    return std::any_of(outgoing_.begin(), outgoing_.end(), [](const Outgoing& o) { return !o.abandoned; });
  }

  // --- the peer's requests and what they got ---
  // kGranted if the quota allows one more allocation of `size` bytes (then it is counted), else why not.
  wire::AgentStatus admit(uint64_t id, uint64_t size) {
    if (served_.size() >= quota_count_) return wire::AgentStatus::kOverCount;
    if (size > quota_bytes_ - std::min(quota_bytes_, served_bytes_)) return wire::AgentStatus::kOverBytes;
    served_.push_back(Served{id, size, 0, 0, false});
    served_bytes_ += size;
    return wire::AgentStatus::kGranted;
  }
  uint64_t limit_of(wire::AgentStatus refusal) const noexcept {
    return refusal == wire::AgentStatus::kOverCount ? quota_count_ : quota_bytes_;
  }
  // The peer's request `id` waiting for Java's allocation, or null.
  Served* waiting(uint64_t id) noexcept {
    auto it = std::find_if(served_.begin(), served_.end(), [id](const Served& s) { return !s.granted && s.id == id; });
    return it == served_.end() ? nullptr : &*it;
  }
  bool has_waiting(uint64_t id) noexcept { return waiting(id) != nullptr; }
  // Java could not allocate it (or granted it and it is released): its quota comes back.
  void forget(const Served* s) {
    served_bytes_ -= s->size;
    served_.erase(served_.begin() + (s - served_.data()));
  }
  // The granted allocation matching a release exactly, or null.
  Served* granted(uint64_t address, uint32_t rkey, uint64_t length) noexcept {
    auto it = std::find_if(served_.begin(), served_.end(), [&](const Served& s) {
      return s.granted && s.address == address && s.rkey == rkey && s.size == length;
    });
    return it == served_.end() ? nullptr : &*it;
  }

  void clear() noexcept {
    outgoing_.clear();
    served_.clear();
    served_bytes_ = 0;
  }

 private:
  const uint64_t quota_bytes_;
  const uint32_t quota_count_;
  std::vector<Outgoing> outgoing_;  // few: what the application asked for and waits on
  std::vector<Served> served_;      // at most quota_count_
  uint64_t served_bytes_ = 0;
};

}  // namespace jrdma
