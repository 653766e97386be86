// Connection requests parked for their listener's admission policy (docs/security.md): nothing is
// created for a request yet (no channel, no channel memory); Java's policy sees who asks and with
// what connect data and decides at once on the loop thread, from the kAdmissionRequest record
// whose handle names the request. A parked request keeps its place among the pending connections.
// One implementation for every transport; a transport's request adds what it needs to answer
// (the rdma_cm id, the socket).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "context/pending_connections.h"
#include "protocol/event_record.h"
#include "wire/handshake.h"

namespace jrdma {

struct AdmissionRequest {
  wire::Handshake peer;
  std::string peer_address;   // "ip port"
  std::vector<uint8_t> data;  // the client's connect data
  PendingPlace place;
};

// Loop thread only. `Request` derives from AdmissionRequest.
template <typename Request>
class AdmissionQueue {
 public:
  // Parks the request; returns the handle for its kAdmissionRequest record.
  int64_t park(std::unique_ptr<Request> request) {
    int64_t handle = handle_of(request.get());
    parked_.push_back(std::move(request));
    return handle;
  }

  // The request behind a handle, or null once decided or gone.
  const Request* find(int64_t handle) const noexcept {
    auto it = position(handle);
    return it == parked_.end() ? nullptr : it->get();
  }

  // Takes the request out to be decided; a handle decided already or gone is the caller's error.
  std::unique_ptr<Request> take(int64_t handle) {
    auto it = position(handle);
    if (it == parked_.end()) {
      throw RdmaError(ErrorKind::kIllegalArgument,
                      "no connection request " + std::to_string(handle) + " awaits a decision");
    }
    std::unique_ptr<Request> request = std::move(*it);
    parked_.erase(it);
    return request;
  }

  // Takes out every request `selected` names (all of a listener that closes) and hands each to
  // `refuse`, which answers the peer; the request is destroyed after.
  template <typename Selected, typename Refuse>
  void refuse_each(Selected selected, Refuse refuse) noexcept {
    for (auto it = parked_.begin(); it != parked_.end();) {
      if (!selected(**it)) {
        ++it;
        continue;
      }
      std::unique_ptr<Request> request = std::move(*it);
      it = parked_.erase(it);
      refuse(*request);
    }
  }

  std::size_t size() const noexcept { return parked_.size(); }

 private:
  static auto named(int64_t handle) noexcept {
    return [handle](const std::unique_ptr<Request>& request) { return handle_of(request.get()) == handle; };
  }
  auto position(int64_t handle) noexcept { return std::find_if(parked_.begin(), parked_.end(), named(handle)); }
  auto position(int64_t handle) const noexcept { return std::find_if(parked_.begin(), parked_.end(), named(handle)); }

  std::vector<std::unique_ptr<Request>> parked_;
};

}  // namespace jrdma
