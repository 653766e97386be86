// The TCP context (transports/stream/tcp_context.h) behind JNI's ContextHandle: channels are
// TcpChannelEntry*, listeners TcpListener* (the pointers its records carry); registrations are
// entries of its memory table, whose key serves as both lkey and rkey.
#include <netinet/in.h>
#include <sys/socket.h>

#include "base/error.h"
#include "base/socket_address.h"
#include "jni/context_handle.h"
#include "jni/handles.h"
#include "transports/stream/tcp_context.h"

namespace jrdma::jni {

namespace {

constexpr uint32_t kStreamReads = 16;

class TcpRegistration final : public Registration {
 public:
  TcpRegistration(tcp::MemoryTable& table, uint32_t key) : table_(table), key_(key) {}
  ~TcpRegistration() override { release(); }
  uint32_t lkey() const noexcept override { return key_; }
  uint32_t rkey() const noexcept override { return key_; }
  int release() noexcept override {
    if (key_ != 0) table_.remove(key_);
    key_ = 0;
    return 0;
  }

 private:
  tcp::MemoryTable& table_;
  uint32_t key_;
};

// A channel's engine options over TCP or shared memory: the record's transport-neutral part (the
// queue pair's is not used). The READs outstanding, which a verbs context takes from its device,
// are the stream's own here: READs pipeline without limit of a queue pair, so a transfer keeps
// several in flight.
EngineOptions stream_options(const ChannelOptions& options) {
  EngineOptions engine = options.engine;
  engine.max_reads = kStreamReads;
  return engine;
}

socklen_t length_of(const sockaddr_storage& address) {
  return address.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
}

class TcpContextHandle final : public ContextHandle {
 public:
  TcpContextHandle(const ContextOptions& options, tcp::SharedMemory shared_memory) : context_(options, shared_memory) {}

  int wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode) override {
    return context_.wait_events(out, capacity, timeout_ms, mode);
  }
  void wake() override { context_.wake(); }
  std::string close() noexcept override { return std::string(); }  // the destructor closes every socket
  int cq_capacity() const noexcept override { return 0; }
  int cq_resizes() const noexcept override { return 0; }
  std::unique_ptr<Registration> register_memory(void* address, std::size_t length, int access) override {
    uint32_t key = context_.memory().add(reinterpret_cast<uintptr_t>(address), length, access);
    return std::make_unique<TcpRegistration>(context_.memory(), key);
  }

  int64_t listen(const sockaddr_storage& address, const ChannelOptions& options, int backlog) override {
    return to_handle(context_.listen(reinterpret_cast<const sockaddr*>(&address), length_of(address),
                                     stream_options(options), backlog, options.max_pending, options.admission));
  }
  int listener_port(int64_t listener) const override { return from_handle<tcp::TcpListener>(listener)->port; }
  void close_listener(int64_t listener) override { context_.close_listener(from_handle<tcp::TcpListener>(listener)); }

  int64_t create_channel(const ChannelOptions& options) override {
    return to_handle(context_.create_channel(stream_options(options)));
  }
  ChannelEngine& engine(int64_t channel) override { return entry(channel).engine; }
  void connect(int64_t channel, const sockaddr_storage& remote, const sockaddr_storage* local, int timeout_ms,
               std::vector<uint8_t> connect_data) override {
    entry(channel).connect_data = std::move(connect_data);
    context_.connect(&entry(channel), remote, timeout_ms, local);
  }
  void destroy_channel(int64_t channel) override { context_.destroy_channel(&entry(channel)); }
  ChannelMemory ring(int64_t channel) override {
    const EngineOptions& options = entry(channel).engine.options();
    return ChannelMemory{entry(channel).memory.data(), std::size_t{options.depth} * options.eager};
  }
  std::string address(int64_t channel, bool local) override {
    return socket_end_text(socket_of(entry(channel)), local);
  }
  std::string describe_link(int64_t channel) override {
    const tcp::TcpChannelEntry& e = entry(channel);
    std::string from = socket_end_text(socket_of(e), true);
    std::string to = socket_end_text(socket_of(e), false);
    bool shared = e.transport != nullptr && e.transport->uses_shared_memory();
    return std::string(shared ? "shared memory (set up over tcp " : "tcp ") + (from.empty() ? "-" : from) + " -> " +
           (to.empty() ? "-" : to) + (shared ? ")" : "");
  }
  std::string refusal_text(int64_t channel) override { return entry(channel).refusal_text; }
  std::string failure_text(int64_t channel) override {
    const tcp::TcpChannelEntry& e = entry(channel);
    return e.transport == nullptr ? std::string() : e.transport->failure();
  }

  const AdmissionRequest* awaiting(int64_t request) const noexcept override { return context_.awaiting(request); }
  void decide(int64_t request, bool accept, uint32_t code, const std::string& text) override {
    context_.decide(request, accept, code, text);
  }

 private:
  static tcp::TcpChannelEntry& entry(int64_t channel) { return *from_handle<tcp::TcpChannelEntry>(channel); }
  static int socket_of(const tcp::TcpChannelEntry& channel) {
    return channel.transport ? channel.transport->fd() : channel.fd;
  }

  tcp::TcpContext context_;
};

}  // namespace

std::unique_ptr<ContextHandle> open_tcp_context(const ContextOptions& options, TransportKind kind) {
  tcp::SharedMemory shared_memory = kind == TransportKind::kShm    ? tcp::SharedMemory::kRequired
                                    : kind == TransportKind::kAuto ? tcp::SharedMemory::kPreferred
                                                                   : tcp::SharedMemory::kOff;
  return std::make_unique<TcpContextHandle>(options, shared_memory);
}

}  // namespace jrdma::jni
