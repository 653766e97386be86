// The header slots and atomic results of channels that receive through a shared receive queue — the
// only part of such a channel the device touches locally (the ring is plain memory the loop copies
// into) — carved from registered slabs of many channels': one ibv_reg_mr per slab instead of one per
// channel, which matters on the loop thread that accepts (Soft-RoCE under emulation spends 140-210 us
// on a 12 KiB registration: docs/performance.md). A slab holds as many slices as its size class has
// in use (4 at least, 64 at most), so a context of a few channels pins a few slices, a burst of
// thousands one registration per 64. A slab whose slices are all back goes (deregistered, its pages
// given back), except the last empty one of its class. Thread-safe.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "context/channel_memory.h"
#include "transports/verbs/memory_region.h"

namespace jrdma {

struct RegisteredSlice {
  uint8_t* address = nullptr;
  uint32_t lkey = 0;
};

class RegisteredSlices {
 public:
  explicit RegisteredSlices(ibv_pd* pd) : pd_(pd) {}
  ~RegisteredSlices() { release(); }
  RegisteredSlices(const RegisteredSlices&) = delete;
  RegisteredSlices& operator=(const RegisteredSlices&) = delete;

  // A slice of at least `size` bytes (local write), from a slab with one free, or a new slab. Throws
  // RdmaError when a slab cannot be mapped or registered.
  RegisteredSlice take(std::size_t size);
  // The slice's memory is no longer used by the device (its queue pair is gone).
  void give_back(const RegisteredSlice& slice) noexcept;
  // Deregisters and frees every slab (before the protection domain goes); slices given back later
  // are ignored.
  void release() noexcept;
  // Slabs registered now (diagnostics and tests).
  std::size_t slabs() const;

 private:
  struct Slab {
    std::size_t slice_size;
    ChannelMemory memory;
    std::unique_ptr<verbs::MemoryRegion> region;
    std::vector<uint32_t> free;  // slice indexes
    uint32_t slices;
  };
  static void discard(Slab& slab) noexcept;
  std::size_t in_use(std::size_t slice_size) const noexcept;

  ibv_pd* pd_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Slab>> slabs_;
};

}  // namespace jrdma
