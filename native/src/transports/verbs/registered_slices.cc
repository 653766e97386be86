#include "transports/verbs/registered_slices.h"

#include <algorithm>

namespace jrdma {

namespace {

constexpr uint32_t kFewestSlices = 4;
constexpr uint32_t kMostSlices = 64;
constexpr std::size_t kSliceAlignment = 64;  // a cache line: slices never share one

}  // namespace

RegisteredSlice RegisteredSlices::take(std::size_t size) {
  const std::size_t slice_size =
      (std::max<std::size_t>(size, 1) + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& slab : slabs_) {
    if (slab->slice_size == slice_size && !slab->free.empty()) {
      uint32_t index = slab->free.back();
      slab->free.pop_back();
      return {slab->memory.base + index * slice_size, slab->region->lkey()};
    }
  }
  auto slices = static_cast<uint32_t>(std::clamp<std::size_t>(in_use(slice_size), kFewestSlices, kMostSlices));
  auto slab = std::make_unique<Slab>();
  slab->slice_size = slice_size;
  slab->slices = slices;
  slab->memory = allocate_channel_memory(slice_size * slices);
  try {
    slab->region =
        std::make_unique<verbs::MemoryRegion>(pd_, slab->memory.base, slice_size * slices, IBV_ACCESS_LOCAL_WRITE);
    slab->free.reserve(slices);
    for (uint32_t i = slices; i-- > 1;) slab->free.push_back(i);  // slice 0 is taken now
    slabs_.push_back(std::move(slab));
  } catch (...) {
    discard(*slab);
    throw;
  }
  const Slab& added = *slabs_.back();
  return {added.memory.base, added.region->lkey()};
}

void RegisteredSlices::give_back(const RegisteredSlice& slice) noexcept {
  if (slice.address == nullptr) return;
  std::unique_ptr<Slab> gone;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = std::find_if(slabs_.begin(), slabs_.end(), [&](const std::unique_ptr<Slab>& s) {
      return slice.address >= s->memory.base && slice.address < s->memory.base + s->slice_size * s->slices;
    });
    if (it == slabs_.end()) return;  // released with the context
    Slab& slab = **it;
    slab.free.push_back(static_cast<uint32_t>((slice.address - slab.memory.base) / slab.slice_size));
    if (slab.free.size() < slab.slices) return;
    bool another_empty = std::any_of(slabs_.begin(), slabs_.end(), [&](const std::unique_ptr<Slab>& s) {
      return s.get() != &slab && s->slice_size == slab.slice_size && s->free.size() == s->slices;
    });
    if (!another_empty) return;  // kept: the next channel of this size registers nothing
    gone = std::move(*it);
    slabs_.erase(it);
  }
  discard(*gone);  // outside the lock: deregistering is a system call
}

void RegisteredSlices::release() noexcept {
  std::vector<std::unique_ptr<Slab>> slabs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slabs.swap(slabs_);
  }
  for (auto& slab : slabs) discard(*slab);
}

std::size_t RegisteredSlices::slabs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return slabs_.size();
}

void RegisteredSlices::discard(Slab& slab) noexcept {
  slab.region.reset();  // deregistered before the memory is given back
  if (slab.memory.base != nullptr) free_channel_memory(slab.memory);
  slab.memory = ChannelMemory{};
}

std::size_t RegisteredSlices::in_use(std::size_t slice_size) const noexcept {
  std::size_t used = 0;
  for (const auto& slab : slabs_) {
    if (slab->slice_size == slice_size) used += slab->slices - slab->free.size();
  }
  return used;
}

}  // namespace jrdma
