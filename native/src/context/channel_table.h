// A context's channels by key, the same for every transport. A key is an index into the table
// (low 16 bits) and that index's generation (high 16 bits, never 0): a key that outlived its
// channel names nobody, even once the index is reused, so a late completion, record or command
// for a gone channel finds nothing. Entries are inserted and removed under a mutex (any thread)
// and looked up without one (the loop thread, per completion).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.h"
#include "context/native_heap.h"

namespace jrdma {

// `Entry` has a member `const uint32_t key`, the key it was made with.
template <typename Entry>
class ChannelTable {
 public:
  static constexpr uint32_t kCapacity = 1u << 16;

  // `owner` names the context in the error a full table raises.
  explicit ChannelTable(std::string owner) : owner_(std::move(owner)), slots_(new std::atomic<Entry*>[kCapacity]) {
    for (uint32_t i = 0; i < kCapacity; ++i) slots_[i].store(nullptr, std::memory_order_relaxed);
  }
  ~ChannelTable() { clear(); }
  ChannelTable(const ChannelTable&) = delete;
  ChannelTable& operator=(const ChannelTable&) = delete;

  // Makes an entry with a fresh key (`make(key)` returns a std::unique_ptr<Entry>) and owns it.
  // Throws RdmaError (kIllegalState) when 65,535 channels are live, or what `make` throws (the key
  // is not used then).
  template <typename Make>
  Entry* insert(Make&& make) {
    std::lock_guard<std::mutex> lock(mutex_);
    uint32_t index;
    if (!free_indexes_.empty()) {
      index = free_indexes_.back();
      free_indexes_.pop_back();
    } else {
      if (used_.load(std::memory_order_relaxed) >= kCapacity - 1) {
        throw RdmaError(ErrorKind::kIllegalState, "too many channels on " + owner_ + " (at most 65535 at a time)");
      }
      index = used_.load(std::memory_order_relaxed);
      // remove() puts the index back without allocating: room for every index ever used.
      if (free_indexes_.capacity() < index + 1)
        free_indexes_.reserve(std::max<std::size_t>(64, 2 * free_indexes_.capacity()));
      generations_.push_back(1);
      used_.store(index + 1, std::memory_order_release);
    }
    std::unique_ptr<Entry> entry;
    try {
      entry = make(index | (static_cast<uint32_t>(generations_[index]) << 16));
    } catch (...) {
      free_indexes_.push_back(index);
      throw;
    }
    Entry* raw = entry.release();
    slots_[index].store(raw, std::memory_order_release);
    return raw;
  }

  // The entry with this key, or null (removed, or a stale key). Any thread; the caller makes sure
  // the entry is not removed and deleted meanwhile (the loop thread removes).
  Entry* lookup(uint32_t key) const noexcept {
    Entry* entry = slots_[key & 0xffff].load(std::memory_order_acquire);
    return entry != nullptr && entry->key == key ? entry : nullptr;
  }

  // Takes the entry out (its key names nobody from now on) and hands it back to the caller; null
  // when it is not in the table.
  std::unique_ptr<Entry> remove(Entry* entry) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    uint32_t index = entry->key & 0xffff;
    if (slots_[index].load(std::memory_order_relaxed) != entry) return nullptr;
    slots_[index].store(nullptr, std::memory_order_release);
    generations_[index] = static_cast<uint16_t>(generations_[index] == 0xffff ? 1 : generations_[index] + 1);
    free_indexes_.push_back(index);  // within its capacity (insert)
    NativeHeap::channel_gone();
    return std::unique_ptr<Entry>(entry);
  }

  // Calls fn(Entry&) for each entry. Loop thread: entries it removes are not visited again; ones
  // inserted meanwhile by other threads may or may not be.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    const uint32_t used = used_.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < used; ++i) {
      if (Entry* entry = slots_[i].load(std::memory_order_acquire)) fn(*entry);
    }
  }

  // Deletes every entry (the context's close).
  void clear() noexcept {
    const uint32_t used = used_.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < used; ++i) {
      if (Entry* entry = slots_[i].load(std::memory_order_acquire)) remove(entry).reset();
    }
  }

 private:
  const std::string owner_;
  std::unique_ptr<std::atomic<Entry*>[]> slots_;
  std::atomic<uint32_t> used_{0};  // indexes ever used
  std::mutex mutex_;
  std::vector<uint16_t> generations_;   // guarded by mutex_
  std::vector<uint32_t> free_indexes_;  // guarded by mutex_
};

}  // namespace jrdma
