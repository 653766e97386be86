#include "protocol/receive_ring.h"

namespace jrdma {

ReceiveRing::ReceiveRing(uint8_t* base, uint32_t depth, uint32_t eager)
    : base_(base), depth_(depth), eager_(eager), states_(depth, SlotState::kFree) {
  reposts_.reserve(depth);
}

void ReceiveRing::repost_all() noexcept {
  reposts_.clear();
  for (uint32_t slot = 0; slot < depth_; ++slot) {
    states_[slot] = SlotState::kFree;
    reposts_.push_back(slot);
  }
  held_ = 0;
}

bool ReceiveRing::arrive(uint32_t slot) noexcept {
  if (slot >= depth_ || states_[slot] != SlotState::kPosted) return false;
  states_[slot] = SlotState::kHeld;
  ++held_;
  return true;
}

bool ReceiveRing::release(uint32_t slot) noexcept {
  if (slot >= depth_ || states_[slot] != SlotState::kHeld) return false;
  states_[slot] = SlotState::kFree;
  --held_;
  reposts_.push_back(slot);
  return true;
}

void ReceiveRing::mark_reposted() noexcept {
  for (uint32_t slot : reposts_) states_[slot] = SlotState::kPosted;
  reposts_.clear();
}

}  // namespace jrdma
