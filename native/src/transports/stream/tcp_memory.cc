#include "transports/stream/tcp_memory.h"

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "crypto/crypto.h"

namespace jrdma::tcp {

// Every key is drawn at random (getrandom), so one token says nothing about the keys of other
// buffers: a peer that knows one key cannot walk to its neighbours. A live key is never drawn twice.
uint32_t MemoryTable::add(uint64_t address, uint64_t length, int access) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t key = 0;
  while (key == 0 || regions_.count(key) != 0) {  // 0 is "no key"
    if (!crypto::random_bytes(reinterpret_cast<uint8_t*>(&key), sizeof key)) {
      throw RdmaError(ErrorKind::kNative, "getrandom() failed: no key for a memory registration", errno);
    }
  }
  regions_.emplace(key, Region{address, length, access});
  return key;
}

void MemoryTable::remove(uint32_t key) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  regions_.erase(key);
}

bool MemoryTable::permits(uint32_t key, uint64_t address, uint64_t length, int access) const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return permits_locked(key, address, length, access);
}

bool MemoryTable::permits_locked(uint32_t key, uint64_t address, uint64_t length, int access) const noexcept {
  auto it = regions_.find(key);
  if (it == regions_.end()) return false;
  const Region& r = it->second;
  // Written so that no sum can wrap: address - r.address only when address >= r.address.
  return (r.access & access) == access && address >= r.address && length <= r.length &&
         address - r.address <= r.length - length;
}

bool MemoryTable::copy_in(uint32_t key, uint64_t address, const uint8_t* from, uint32_t length) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!permits_locked(key, address, length, kRemoteWrite)) return false;
  std::memcpy(reinterpret_cast<void*>(address), from, length);
  return true;
}

bool MemoryTable::copy_out(uint32_t key, uint64_t address, uint8_t* to, uint32_t length) const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!permits_locked(key, address, length, kRemoteRead)) return false;
  std::memcpy(to, reinterpret_cast<const void*>(address), length);
  return true;
}

bool MemoryTable::atomic(uint32_t key, uint64_t address, AtomicOp op, uint64_t operand0, uint64_t operand1,
                         uint64_t* previous) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (address % 8 != 0 || !permits_locked(key, address, 8, kRemoteAtomic)) return false;
  auto* target = reinterpret_cast<uint64_t*>(address);
  if (op == AtomicOp::kFetchAndAdd) {
    *previous = __atomic_fetch_add(target, operand0, __ATOMIC_SEQ_CST);
  } else {
    uint64_t expected = operand0;
    __atomic_compare_exchange_n(target, &expected, operand1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    *previous = expected;  // the value found, swapped or not
  }
  return true;
}

std::size_t MemoryTable::size() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return regions_.size();
}

}  // namespace jrdma::tcp
