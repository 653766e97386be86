// RAII owner of an rdma_cm id: created on an event channel, or adopted from a connect request.
// Destroying it destroys the id (rdma_destroy_id waits for the id's unacknowledged events, so
// it is destroyed after the event that carried it is acknowledged). Movable, not copyable.
#pragma once

#include <rdma/rdma_cma.h>

#include <string>

namespace jrdma::verbs {

class CmId {
 public:
  CmId() noexcept = default;
  // rdma_create_id(RDMA_PS_TCP) with `context` as the id's context. Throws RdmaError.
  CmId(rdma_event_channel* channel, void* context);
  // Takes ownership of an id rdma_cm created (RDMA_CM_EVENT_CONNECT_REQUEST).
  explicit CmId(rdma_cm_id* adopted) noexcept : id_(adopted) {}
  ~CmId() { reset(); }
  CmId(CmId&& other) noexcept : id_(other.id_) { other.id_ = nullptr; }
  CmId& operator=(CmId&& other) noexcept;
  CmId(const CmId&) = delete;
  CmId& operator=(const CmId&) = delete;

  rdma_cm_id* get() const noexcept { return id_; }
  rdma_cm_id* operator->() const noexcept { return id_; }
  explicit operator bool() const noexcept { return id_ != nullptr; }
  void reset() noexcept;

  // The calls that set an id up; each throws RdmaError naming the call on failure.
  void bind(const sockaddr* address);
  void listen(int backlog);
  void set_option(int name, const void* value, std::size_t length, const std::string& what);
  // Rejects with private data (the id is destroyed later by its owner).
  void reject(const void* data, uint8_t length) noexcept;

 private:
  rdma_cm_id* id_ = nullptr;
};

}  // namespace jrdma::verbs
