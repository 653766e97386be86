#include "transports/stream/sources_ahead.h"

#include <cstring>

namespace jrdma::tcp {

bool SourcesAhead::send_ahead(uint32_t key, uint64_t length) noexcept {
  if (key == 0 || length == 0 || length > kSlotBytes) return false;
  for (uint32_t& sent : sent_keys_) {
    if (sent == 0) {
      sent = key;
      return true;
    }
  }
  return false;
}

bool SourcesAhead::revoked(uint32_t key) noexcept {
  for (uint32_t& sent : sent_keys_) {
    if (sent != 0 && sent == key) {
      sent = 0;
      return true;
    }
  }
  return false;
}

uint8_t* SourcesAhead::hold(uint32_t key, uint64_t address, uint32_t length) {
  if (length == 0 || length > kSlotBytes) return nullptr;
  if (memory_ == nullptr) memory_ = std::make_unique<OwnedChannelMemory>(std::size_t{kSlots} * kSlotBytes);
  for (uint32_t i = 0; i < kSlots; ++i) {
    Held& h = held_[i];
    if (h.used) continue;
    h = Held{true, false, key, address, length, 0};
    last_held_ = static_cast<int>(i);
    return memory_->data() + static_cast<std::size_t>(i) * kSlotBytes;
  }
  return nullptr;
}

void SourcesAhead::arrived() noexcept {
  if (last_held_ >= 0) held_[last_held_].complete = true;
  last_held_ = -1;
}

// Only a READ that lies wholly within one source's bytes is served (the engine reads a source from
// its start in chunks); any other READ of that key means the bytes will not all be read from the
// slot, so the slot is given up and the READs go to the peer, which still exposes the source.
bool SourcesAhead::serve(uint32_t key, uint64_t address, uint32_t length, uint8_t* into) noexcept {
  for (uint32_t i = 0; i < kSlots; ++i) {
    Held& h = held_[i];
    if (!h.used || !h.complete || h.key != key) continue;
    bool within = address >= h.address && address - h.address <= h.length && length <= h.length - (address - h.address);
    if (!within || length == 0) {
      h = Held{};
      return false;
    }
    std::memcpy(into, memory_->data() + static_cast<std::size_t>(i) * kSlotBytes + (address - h.address), length);
    h.read += length;
    ++served_;
    if (h.read >= h.length) h = Held{};
    return true;
  }
  return false;
}

void SourcesAhead::forget(uint32_t key) noexcept {
  for (uint32_t i = 0; i < kSlots; ++i) {
    Held& h = held_[i];
    if (h.used && h.key == key) {
      if (last_held_ == static_cast<int>(i)) last_held_ = -1;
      h = Held{};
    }
  }
}

bool SourcesAhead::idle() const noexcept {
  for (uint32_t sent : sent_keys_) {
    if (sent != 0) return false;
  }
  for (const Held& h : held_) {
    if (h.used) return false;
  }
  return true;
}

}  // namespace jrdma::tcp
