// The receive side of a channel: depth buffers of eager bytes each in the channel's memory, and
// where each is — posted to the transport, held by the application (a delivered message not yet
// released), or free and waiting to be re-posted. Re-posts are collected and posted in one call,
// before the sends whose headers return their credits. Not thread-safe: the engine's lock.
#pragma once

#include <cstdint>
#include <vector>

namespace jrdma {

class ReceiveRing {
 public:
  ReceiveRing(uint8_t* base, uint32_t depth, uint32_t eager);

  const uint8_t* data(uint32_t slot) const noexcept { return base_ + static_cast<std::size_t>(slot) * eager_; }
  uint32_t depth() const noexcept { return depth_; }
  uint32_t eager() const noexcept { return eager_; }

  // Every slot is to be posted (connection set-up).
  void repost_all() noexcept;
  // A receive completed in slot: posted -> held. False when the slot was not posted.
  bool arrive(uint32_t slot) noexcept;
  // The application released slot: held -> to be re-posted. False when it was not held.
  bool release(uint32_t slot) noexcept;
  // Slots waiting to be re-posted; mark_reposted() once the transport took them.
  const std::vector<uint32_t>& pending_reposts() const noexcept { return reposts_; }
  void mark_reposted() noexcept;
  uint32_t held() const noexcept { return held_; }

 private:
  enum class SlotState : uint8_t { kFree, kPosted, kHeld };
  uint8_t* base_;
  uint32_t depth_;
  uint32_t eager_;
  uint32_t held_ = 0;
  std::vector<SlotState> states_;
  std::vector<uint32_t> reposts_;
};

}  // namespace jrdma
