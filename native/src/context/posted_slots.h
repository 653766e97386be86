// The receive slots a channel's engine posted that the transport has not filled yet, where the
// transport picks the slot a message goes to itself (TCP and shared memory; verbs over a shared
// receive queue). The slot posted last is filled first (a queue pair would take the first): it is
// warm in the cache and already has its pages, so a channel touches as many of its receive buffers
// as it has messages outstanding at once, not its whole ring. Not thread-safe: the owner's lock.
#pragma once

#include <cstdint>
#include <vector>

namespace jrdma {

class PostedSlots {
 public:
  // `depth`: the most slots ever posted at once, reserved now (posting allocates nothing); 0: unknown.
  explicit PostedSlots(uint32_t depth = 0) { slots_.reserve(depth); }

  void post(const uint32_t* slots, int count) { slots_.insert(slots_.end(), slots, slots + count); }
  // The slot posted last, now taken; false when none is posted (the peer sent beyond its credits).
  bool take_last(uint32_t* slot) noexcept {
    if (slots_.empty()) return false;
    *slot = slots_.back();
    slots_.pop_back();
    return true;
  }
  // Hands every slot still posted to `each` and forgets them (a channel that ended flushes them).
  template <typename Each>
  void drain(Each each) {
    for (uint32_t slot : slots_) each(slot);
    slots_.clear();
  }

 private:
  std::vector<uint32_t> slots_;
};

}  // namespace jrdma
