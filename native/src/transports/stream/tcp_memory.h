// What a peer may touch over TCP, by key: the TCP transport's stand-in for memory registrations.
// A region grants exactly its bytes and its access bits, and a removed key grants nothing: the
// checks an HCA makes for an rkey, made in software before any byte moves.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "transports/stream/tcp_frame.h"

namespace jrdma::tcp {

// The remote access bits, with the values of ibv_access_flags.
constexpr int kRemoteWrite = 2;
constexpr int kRemoteRead = 4;
constexpr int kRemoteAtomic = 8;

class MemoryTable {
 public:
  // Grants `access` to [address, +length); returns a fresh random key. Any thread. Throws RdmaError
  // when no random bytes can be had.
  uint32_t add(uint64_t address, uint64_t length, int access);
  // The key grants nothing from now on (unknown keys are ignored). Any thread.
  void remove(uint32_t key) noexcept;
  // Whether [address, +length) lies inside the region of `key` and it grants every bit of `access`.
  bool permits(uint32_t key, uint64_t address, uint64_t length, int access) const noexcept;
  // The accesses themselves, each under the check and the table's lock, so a region removed on
  // another thread is never touched after remove() returned. False (nothing done) when refused.
  bool copy_in(uint32_t key, uint64_t address, const uint8_t* from, uint32_t length) noexcept;  // kRemoteWrite
  bool copy_out(uint32_t key, uint64_t address, uint8_t* to, uint32_t length) const noexcept;   // kRemoteRead
  // The aligned 8 bytes at address (kRemoteAtomic), atomically also for this process's CPUs.
  bool atomic(uint32_t key, uint64_t address, AtomicOp op, uint64_t operand0, uint64_t operand1,
              uint64_t* previous) noexcept;
  std::size_t size() const noexcept;

 private:
  struct Region {
    uint64_t address;
    uint64_t length;
    int access;
  };
  bool permits_locked(uint32_t key, uint64_t address, uint64_t length, int access) const noexcept;

  mutable std::mutex mutex_;
  std::unordered_map<uint32_t, Region> regions_;
};

}  // namespace jrdma::tcp
