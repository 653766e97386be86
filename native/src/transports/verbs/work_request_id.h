// What a work request's id carries, so a completion finds its way back: the channel's key (or, for
// a shared receive queue's buffer, the queue's number) in the high 32 bits, a receive flag, and the
// send slot, receive slot or buffer number in the low 31 bits.
#pragma once

#include <cstdint>

namespace jrdma {

constexpr uint64_t kReceiveFlag = 1ull << 31;
inline uint64_t make_wr_id(uint32_t key, bool receive, uint32_t slot) {
  return (static_cast<uint64_t>(key) << 32) | (receive ? kReceiveFlag : 0) | (slot & 0x7fffffffu);
}
inline uint32_t wr_id_key(uint64_t wr_id) { return static_cast<uint32_t>(wr_id >> 32); }
inline bool wr_id_is_receive(uint64_t wr_id) { return (wr_id & kReceiveFlag) != 0; }
inline uint32_t wr_id_slot(uint64_t wr_id) { return static_cast<uint32_t>(wr_id & 0x7fffffffu); }

}  // namespace jrdma
