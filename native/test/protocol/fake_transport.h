// An in-memory transport for the engine's unit tests: two FakeTransports joined back to back
// behave like a reliable-connected queue pair pair — sends consume the peer's posted receives in
// order (a send without one is a receiver-not-ready, which the protocol must never cause), the
// send queue completes in order, one-sided operations act on plain memory, and disconnect flushes.
// The test decides when each request executes and when each completion reaches its engine, so
// random interleavings explore orders a real device could produce.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "base/error.h"
#include "protocol/channel_engine.h"
#include "protocol/transport.h"
#include "wire/message_header.h"

namespace jrdma::test {

struct FakeCompletion {
  bool receive = false;
  uint32_t slot = 0;
  int status = kStatusSuccess;
  uint32_t byte_len = 0;
  bool immediate = false;
  uint32_t imm = 0;
};

class FakeTransport : public ChannelTransport {
 public:
  FakeTransport(uint8_t* ring, uint32_t eager) : ring_(ring), eager_(eager) {}

  void connect(FakeTransport* peer) { peer_ = peer; }

  void post_chain(const WorkRequest* requests, int count) override {
    if (fail_next_post) {
      fail_next_post = false;
      throw RdmaError(ErrorKind::kNative, "fake post failed", 12);
    }
    for (int i = 0; i < count; ++i) {
      WorkRequest wr = requests[i];
      if (wr.header != nullptr) {
        // A real HCA reads the header when it executes the request; the header slot stays put
        // until the slot completes, so copying it now is the same.
        headers_.emplace_back(wr.header, wr.header + wr.header_length);
      } else {
        headers_.emplace_back();
      }
      sends_.push_back(wr);
    }
    ++chains_posted;
  }

  void post_receives(const uint32_t* slots, int count) override {
    for (int i = 0; i < count; ++i) receives_.push_back(slots[i]);
  }

  uint32_t memory_key() const noexcept override { return 0x4b; }

  void disconnect() noexcept override { disconnect_requested = true; }

  Exposure expose_for_read(uint64_t address, uint64_t length) override {
    if (fail_next_expose) {
      fail_next_expose = false;
      throw RdmaError(ErrorKind::kNative, "fake registration failed", 12);
    }
    Region r{address, length, next_rkey_++, next_handle_++};
    regions_.push_back(r);
    return Exposure{r.handle, r.rkey};
  }

  void revoke(uint64_t handle) noexcept override {
    for (std::size_t i = 0; i < regions_.size(); ++i) {
      if (regions_[i].handle == handle) {
        regions_.erase(regions_.begin() + static_cast<std::ptrdiff_t>(i));
        ++revoked;
        return;
      }
    }
    ++unknown_revokes;
  }

  // Whether [address, +length) lies inside a region exposed under rkey (what an HCA checks).
  bool exposed(uint64_t address, uint64_t length, uint32_t rkey) const {
    for (const Region& r : regions_) {
      if (r.rkey == rkey && address >= r.address && address + length <= r.address + r.length) return true;
    }
    return false;
  }
  std::size_t exposures() const { return regions_.size(); }

  // Executes the oldest posted send request. Returns a text when the protocol did something a
  // real queue pair would punish (receiver not ready), else "".
  std::string execute_one(int status = kStatusSuccess) {
    if (sends_.empty()) return "";
    WorkRequest wr = sends_.front();
    std::vector<uint8_t> header = headers_.front();
    sends_.pop_front();
    headers_.pop_front();
    if (broken_ || status != kStatusSuccess) {
      broken_ = true;
      completions_.push_back({false, wr.slot, status == kStatusSuccess ? kStatusFlushed : status});
      return "";
    }
    switch (wr.kind) {
      case OpKind::kSend:
      case OpKind::kCredit:
      case OpKind::kControl: {
        if (peer_->receives_.empty()) return "receiver not ready: a send without a posted receive at the peer";
        uint32_t slot = peer_->receives_.front();
        peer_->receives_.pop_front();
        uint8_t* into = peer_->ring_ + static_cast<std::size_t>(slot) * peer_->eager_;
        if (header.size() + wr.length > peer_->eager_) return "message longer than the receive buffer";
        std::memcpy(into, header.data(), header.size());
        if (wr.length > 0) {
          std::memcpy(into + header.size(), reinterpret_cast<const void*>(wr.local_address), wr.length);
        }
        peer_->completions_.push_back({true, slot, kStatusSuccess, static_cast<uint32_t>(header.size()) + wr.length});
        break;
      }
      case OpKind::kTransferRead:
        // The peer's HCA checks the key and the range against what the peer exposed.
        if (!peer_->serves_any_read && !peer_->exposed(wr.remote_address, wr.length, wr.rkey)) {
          broken_ = true;
          completions_.push_back({false, wr.slot, kStatusRemoteAccess});
          return "";
        }
        std::memcpy(reinterpret_cast<void*>(wr.local_address), reinterpret_cast<const void*>(wr.remote_address),
                    wr.length);
        ++reads_executed;
        break;
      case OpKind::kWriteWithImmediate: {
        if (peer_->receives_.empty()) return "receiver not ready: a write with immediate without a posted receive";
        uint32_t slot = peer_->receives_.front();
        peer_->receives_.pop_front();
        std::memmove(reinterpret_cast<void*>(wr.remote_address), reinterpret_cast<const void*>(wr.local_address),
                     wr.length);
        peer_->completions_.push_back({true, slot, kStatusSuccess, wr.length, true, wr.immediate});
        break;
      }
      case OpKind::kWrite:
        std::memmove(reinterpret_cast<void*>(wr.remote_address), reinterpret_cast<const void*>(wr.local_address),
                     wr.length);
        break;
      case OpKind::kRead:
        std::memmove(reinterpret_cast<void*>(wr.local_address), reinterpret_cast<const void*>(wr.remote_address),
                     wr.length);
        break;
      case OpKind::kCompareAndSwap:
      case OpKind::kFetchAndAdd: {
        auto* target = reinterpret_cast<uint64_t*>(wr.remote_address);
        uint64_t old = *target;
        *target = wr.kind == OpKind::kFetchAndAdd ? old + wr.compare_add : (old == wr.compare_add ? wr.swap : old);
        std::memcpy(reinterpret_cast<void*>(wr.local_address), &old, sizeof old);
        break;
      }
      case OpKind::kReleaseReceive:
      case OpKind::kReceive:
      case OpKind::kTransferBuffer:
      case OpKind::kAgentAnswer:
        return "a receive-side submission reached the transport";
      case OpKind::kAllocateRemote:
      case OpKind::kReleaseRemote:
      case OpKind::kSendToken:
        return "an agent message reached the transport as itself, not as kControl";
    }
    if (wr.signaled) completions_.push_back({false, wr.slot, kStatusSuccess});
    return "";
  }

  // The connection is gone (both sides): pending requests and receives flush, in order.
  void flush_all() {
    broken_ = true;
    while (!sends_.empty()) execute_one();
    for (uint32_t slot : receives_) completions_.push_back({true, slot, kStatusFlushed});
    receives_.clear();
  }

  // Hands the oldest completion to the engine. False when there is none.
  bool deliver_one(ChannelEngine& engine) {
    if (completions_.empty()) return false;
    FakeCompletion c = completions_.front();
    completions_.pop_front();
    if (!c.receive) {
      engine.on_send_completion(c.slot, c.status);
    } else if (c.status != kStatusSuccess) {
      engine.on_receive_error(c.status);
    } else if (c.immediate) {
      engine.on_immediate(c.slot, c.imm);
    } else {
      engine.on_receive(c.slot, c.byte_len);
    }
    return true;
  }

  std::size_t pending_sends() const { return sends_.size(); }
  const WorkRequest& first_send() const { return sends_.front(); }
  std::size_t pending_completions() const { return completions_.size(); }
  std::size_t posted_receives() const { return receives_.size(); }
  uint32_t first_posted_receive() const { return receives_.front(); }
  void take_first_receive() { receives_.pop_front(); }
  void push_completion(const FakeCompletion& c) { completions_.push_back(c); }
  uint8_t* ring_slot(uint32_t slot) { return ring_ + static_cast<std::size_t>(slot) * eager_; }

  bool disconnect_requested = false;
  bool fail_next_post = false;
  bool fail_next_expose = false;
  bool serves_any_read = false;  // the fuzz target's peer: a READ of any address it was given works
  int chains_posted = 0;
  int reads_executed = 0;
  int revoked = 0;
  int unknown_revokes = 0;
  static constexpr int kStatusRemoteAccess = 10;  // IBV_WC_REM_ACCESS_ERR

 private:
  uint8_t* ring_;
  uint32_t eager_;
  FakeTransport* peer_ = nullptr;
  bool broken_ = false;
  std::deque<WorkRequest> sends_;
  std::deque<std::vector<uint8_t>> headers_;
  std::deque<uint32_t> receives_;
  std::deque<FakeCompletion> completions_;
  struct Region {
    uint64_t address;
    uint64_t length;
    uint32_t rkey;
    uint64_t handle;
  };
  std::vector<Region> regions_;
  uint32_t next_rkey_ = 0x100;
  uint64_t next_handle_ = 1;
};

}  // namespace jrdma::test
