// Rendezvous sources sent ahead of their START over a stream transport (docs/protocol.md, "Sources
// sent ahead"). Over RDMA the receiver READs a large message's bytes once it knows where they go:
// a round trip, which a queue pair makes cheap. Over a byte stream the round trip is two more frames
// each way and a turn of both loops, so the sender's transport writes a small source's bytes into the
// stream right when the engine exposes it, before the START that announces it; the receiver's
// transport holds them in one of a few fixed slots until the engine's READ asks for them, and
// serves that READ from the slot instead of the peer.
//
// Both ends count the same slots: a sender has kSlots credits, takes one per source sent ahead and
// gets it back when the engine revokes that source (the peer's DONE, which the receiver sends only
// after it read the bytes out of the slot or gave the transfer up: forget()). A sender beyond its
// credits, a source longer than a slot, or one before the peer proved itself is a protocol error
// at the receiver. Not thread-safe: the transport's lock guards it.
#pragma once

#include <cstdint>
#include <memory>

#include "context/channel_memory.h"

namespace jrdma::tcp {

class SourcesAhead {
 public:
  static constexpr uint32_t kSlots = 2;              // sources of a channel held at a time (per direction)
  static constexpr uint32_t kSlotBytes = 64 * 1024;  // the longest source sent ahead

  SourcesAhead() = default;

  // --- the sender's side: credits -----------------------------------------------------------------
  // Whether a source of `length` bytes under `key` goes ahead (a credit is taken for it).
  bool send_ahead(uint32_t key, uint64_t length) noexcept;
  // The engine revoked the source under `key`: a credit comes back when it was sent ahead.
  // True when it was.
  bool revoked(uint32_t key) noexcept;

  // --- the receiver's side: slots -----------------------------------------------------------------
  // Where the `length` bytes of the peer's source [address, +length) under `key` go; null when the
  // peer may not send it (longer than a slot, or no slot free: it exceeded its credits). The slots are
  // mapped with the first source (a channel that never gets one maps nothing): throws RdmaError when
  // that mapping fails.
  uint8_t* hold(uint32_t key, uint64_t address, uint32_t length);
  // The bytes of the source hold() placed last are all in: READs may take them now.
  void arrived() noexcept;
  // A READ of [address, +length) of the peer's memory under `key`: copied to `into` when a held source
  // covers it (its slot is free once every byte was read); false otherwise — the READ goes to the peer.
  bool serve(uint32_t key, uint64_t address, uint32_t length, uint8_t* into) noexcept;
  // The engine gave the peer's transfer under `key` up (refused it): its bytes are not read.
  void forget(uint32_t key) noexcept;
  // No slot holds anything and no source of ours is ahead: nothing waits on the peer or the engine, the
  // slots' pages may go back to the system (discard()).
  bool idle() const noexcept;
  void discard() noexcept {
    if (memory_ != nullptr) memory_->discard();
  }
  std::size_t resident() const noexcept { return memory_ == nullptr ? 0 : memory_->resident(); }
  // READs served from held sources so far (diagnostics and tests).
  uint64_t served() const noexcept { return served_; }

 private:
  struct Held {
    bool used = false;
    bool complete = false;  // its bytes are all in
    uint32_t key = 0;
    uint64_t address = 0;
    uint32_t length = 0;
    uint32_t read = 0;  // bytes READs took
  };

  uint32_t sent_keys_[kSlots] = {};  // keys of our sources ahead, 0: a credit (keys are never 0)
  Held held_[kSlots];
  int last_held_ = -1;
  uint64_t served_ = 0;
  std::unique_ptr<OwnedChannelMemory> memory_;  // kSlots x kSlotBytes, from the first source on
};

}  // namespace jrdma::tcp
