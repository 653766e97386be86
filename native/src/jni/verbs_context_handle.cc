// The verbs context (transports/verbs/verbs_context.h) behind JNI's ContextHandle: channels are VerbsChannelEntry*, listeners
// VerbsListener*, admission requests AwaitingAdmission* (the pointers the context's records carry).
#include <arpa/inet.h>

#include "base/error.h"
#include "base/socket_address.h"
#include "jni/context_handle.h"
#include "jni/handles.h"
#include "transports/verbs/memory_region.h"

namespace jrdma::jni {

namespace {

class VerbsRegistration final : public Registration {
 public:
  explicit VerbsRegistration(std::unique_ptr<verbs::MemoryRegion> region) : region_(std::move(region)) {}
  uint32_t lkey() const noexcept override { return region_->lkey(); }
  uint32_t rkey() const noexcept override { return region_->rkey(); }
  int release() noexcept override { return region_->release(); }

 private:
  std::unique_ptr<verbs::MemoryRegion> region_;
};

class VerbsContextHandle final : public ContextHandle {
 public:
  explicit VerbsContextHandle(const ContextOptions& options) : context_(options) {}

  int wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode) override {
    return context_.wait_events(out, capacity, timeout_ms, mode);
  }
  void wake() override { context_.wake(); }
  std::string close() noexcept override { return context_.close(); }
  int cq_capacity() const noexcept override { return context_.cq_capacity(); }
  int cq_resizes() const noexcept override { return context_.cq_resizes(); }
  std::unique_ptr<Registration> register_memory(void* address, std::size_t length, int access) override {
    return std::make_unique<VerbsRegistration>(context_.register_memory(address, length, access));
  }

  int64_t listen(const sockaddr_storage& address, const ChannelOptions& options, int backlog) override {
    return to_handle(context_.listen(reinterpret_cast<const sockaddr*>(&address), options, backlog));
  }
  int listener_port(int64_t listener) const override {
    return ntohs(rdma_get_src_port(from_handle<VerbsListener>(listener)->id.get()));
  }
  void close_listener(int64_t listener) override { context_.close_listener(from_handle<VerbsListener>(listener)); }

  int64_t create_channel(const ChannelOptions& options) override { return to_handle(context_.create_channel(options)); }
  ChannelEngine& engine(int64_t channel) override { return from_handle<VerbsChannelEntry>(channel)->engine; }
  void connect(int64_t channel, const sockaddr_storage& remote, const sockaddr_storage* local, int timeout_ms,
               std::vector<uint8_t> connect_data) override {
    VerbsChannelEntry* c = from_handle<VerbsChannelEntry>(channel);
    c->connect_data = std::move(connect_data);
    context_.connect(c, remote, local, timeout_ms);
  }
  void destroy_channel(int64_t channel) override { context_.destroy_channel(from_handle<VerbsChannelEntry>(channel)); }
  ChannelMemory ring(int64_t channel) override {
    VerbsChannelEntry* c = from_handle<VerbsChannelEntry>(channel);
    return ChannelMemory{c->memory().base, std::size_t{c->options.engine.depth} * c->options.engine.eager};
  }
  std::string address(int64_t channel, bool local) override {
    rdma_cm_id* id = from_handle<VerbsChannelEntry>(channel)->transport.cm_id();
    if (id == nullptr) return std::string();
    return address_text(local ? rdma_get_local_addr(id) : rdma_get_peer_addr(id));
  }
  std::string describe_link(int64_t channel) override {
    return from_handle<VerbsChannelEntry>(channel)->transport.describe_queue_pair();
  }
  std::string refusal_text(int64_t channel) override { return from_handle<VerbsChannelEntry>(channel)->refusal_text; }
  std::string failure_text(int64_t) override { return {}; }

  const AdmissionRequest* awaiting(int64_t request) const noexcept override { return context_.awaiting(request); }
  void decide(int64_t request, bool accept, uint32_t code, const std::string& text) override {
    context_.decide(request, accept, code, text);
  }

 private:
  VerbsContext context_;
};

}  // namespace

std::unique_ptr<ContextHandle> open_verbs_context(const ContextOptions& options) {
  return std::make_unique<VerbsContextHandle>(options);
}

}  // namespace jrdma::jni
