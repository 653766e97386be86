#include "transports/verbs/shared_receive_queue.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/error.h"
#include "transports/verbs/work_request_id.h"

namespace jrdma::verbs {

namespace {

// Every shared receive queue of the process, for report_low() (any context's loop may read the event).
std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::unordered_map<const ibv_srq*, SharedReceiveQueue*>& registry() {
  static auto* queues = new std::unordered_map<const ibv_srq*, SharedReceiveQueue*>();  // never destroyed: used at exit
  return *queues;
}

}  // namespace

SharedReceiveQueue::SharedReceiveQueue(ibv_pd* pd, uint32_t index, uint32_t buffer_size, uint32_t buffers,
                                       uint32_t capacity)
    : pd_(pd), index_(index), buffer_size_(buffer_size), capacity_(std::max(capacity, 1u)) {
  ibv_srq_init_attr attr{};
  attr.attr.max_wr = capacity_;
  attr.attr.max_sge = 1;
  srq_ = ibv_create_srq(pd, &attr);
  if (srq_ == nullptr) {
    throw_errno("ibv_create_srq(max_wr=" + std::to_string(capacity_) + ", buffers of " + std::to_string(buffer_size) +
                    " bytes)",
                errno);
  }
  // The device may round the queue up; it never holds more than it said.
  capacity_ = std::min(capacity_, attr.attr.max_wr);
  try {
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      registry()[srq_] = this;
    }
    add_buffers(std::min(std::max(buffers, 1u), capacity_));
    arm_low_water();
  } catch (...) {
    release();
    throw;
  }
}

// The queue goes before its buffers' registrations (no queue pair uses it any more: the context
// destroys its channels first).
SharedReceiveQueue::~SharedReceiveQueue() { release(); }

void SharedReceiveQueue::release() noexcept {
  if (srq_ != nullptr) {
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      registry().erase(srq_);
    }
    ibv_destroy_srq(srq_);
    srq_ = nullptr;
  }
  for (Slab& slab : slabs_) {
    slab.region.reset();
    free_pool_pages(slab.memory);
  }
  slabs_.clear();
}

void SharedReceiveQueue::add_buffers(uint32_t count) {
  Slab slab;
  slab.memory = allocate_pool_pages(static_cast<std::size_t>(count) * buffer_size_);
  try {
    slab.region = std::make_unique<MemoryRegion>(pd_, slab.memory.base, slab.memory.size, IBV_ACCESS_LOCAL_WRITE);
  } catch (...) {
    free_pool_pages(slab.memory);
    throw;
  }
  auto first = static_cast<uint32_t>(addresses_.size());
  addresses_.reserve(first + count);
  lkeys_.reserve(first + count);
  for (uint32_t i = 0; i < count; ++i) {
    addresses_.push_back(slab.memory.base + static_cast<std::size_t>(i) * buffer_size_);
    lkeys_.push_back(slab.region->lkey());
  }
  slabs_.push_back(std::move(slab));
  buffers_.store(static_cast<uint32_t>(addresses_.size()), std::memory_order_relaxed);
  given_back_.reserve(addresses_.size());
  for (uint32_t i = 0; i < count; ++i) given_back_.push_back(first + i);
  post_given_back();
}

void SharedReceiveQueue::post_given_back() {
  constexpr std::size_t kBatch = 32;
  ibv_recv_wr wrs[kBatch];
  ibv_sge sges[kBatch];
  std::size_t done = 0;
  while (done < given_back_.size()) {
    std::size_t n = std::min(kBatch, given_back_.size() - done);
    for (std::size_t i = 0; i < n; ++i) {
      uint32_t number = given_back_[done + i];
      sges[i] = ibv_sge{reinterpret_cast<uintptr_t>(addresses_[number]), buffer_size_, lkeys_[number]};
      wrs[i].wr_id = make_wr_id(index_, true, number);
      wrs[i].sg_list = &sges[i];
      wrs[i].num_sge = 1;
      wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
    }
    ibv_recv_wr* bad = nullptr;
    if (int rc = ibv_post_srq_recv(srq_, wrs, &bad); rc != 0) {
      // What was not posted stays to be posted (the next batch tries again).
      std::size_t posted = bad != nullptr ? static_cast<std::size_t>(bad - wrs) : 0;
      given_back_.erase(given_back_.begin(), given_back_.begin() + static_cast<long>(done + posted));
      throw_errno("ibv_post_srq_recv(" + std::to_string(n - posted) + " buffers)", rc);
    }
    done += n;
  }
  given_back_.clear();
}

void SharedReceiveQueue::report_low(const ibv_srq* srq) noexcept {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(srq);
  if (it != registry().end()) it->second->low_.store(true, std::memory_order_release);
}

void SharedReceiveQueue::grow_if_low() {
  if (!low_.load(std::memory_order_relaxed) || !low_.exchange(false, std::memory_order_acq_rel)) return;
  auto now = static_cast<uint32_t>(addresses_.size());
  if (now < capacity_) add_buffers(std::min(now, capacity_ - now));
  arm_low_water();
}

// The device raises the event once the posted buffers fall below an eighth of them (then the mark
// is spent, and armed again by grow_if_low()). Not at the capacity: there is nothing left to add.
void SharedReceiveQueue::arm_low_water() {
  auto now = static_cast<uint32_t>(addresses_.size());
  if (now >= capacity_) return;
  ibv_srq_attr attr{};
  attr.srq_limit = std::max(1u, now / 8);
  if (int rc = ibv_modify_srq(srq_, &attr, IBV_SRQ_LIMIT); rc != 0) {
    throw_errno("ibv_modify_srq(srq_limit=" + std::to_string(attr.srq_limit) + ")", rc);
  }
}

void SharedReceiveQueue::attach(uint32_t qp_num, uint32_t channel_key) {
  std::lock_guard<std::mutex> lock(owners_mutex_);
  owners_[qp_num] = channel_key;
}

void SharedReceiveQueue::detach(uint32_t qp_num) noexcept {
  std::lock_guard<std::mutex> lock(owners_mutex_);
  owners_.erase(qp_num);
}

bool SharedReceiveQueue::channel_of(uint32_t qp_num, uint32_t* channel_key) const noexcept {
  std::lock_guard<std::mutex> lock(owners_mutex_);
  auto it = owners_.find(qp_num);
  if (it == owners_.end()) return false;
  *channel_key = it->second;
  return true;
}

}  // namespace jrdma::verbs
