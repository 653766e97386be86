// What the JNI layer asks of a context, whatever carries its channels: the verbs context
// (transports/verbs/verbs_context.h) or the TCP context (transports/stream/tcp_context.h). Java holds a ContextHandle* as the
// context's handle; channels, listeners and admission requests keep the handles the contexts put in
// their records (their own objects), and every call about one names its context, which knows the
// type. So the contexts stay free of JNI, and the records mean the same over every transport.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "context/adaptive_spin.h"
#include "context/admission_queue.h"
#include "context/context_options.h"
#include "protocol/channel_engine.h"
#include "protocol/event_record.h"
#include "transports/verbs/verbs_channel_entry.h"
#include "transports/verbs/verbs_context.h"

namespace jrdma::jni {

// org.jrdma.Transport's ordinals (the layout line carries the names). Java resolves AUTO to verbs
// when a device is there; a context opened with kAuto is a TCP context that shares memory with
// peers on this host when they can (kTcp never, kShm always: others are refused).
enum class TransportKind : int32_t { kAuto = 0, kVerbs = 1, kTcp = 2, kShm = 3 };

// Memory a peer may reach by key: a verbs memory region, or a TCP memory-table entry.
class Registration {
 public:
  virtual ~Registration() = default;
  virtual uint32_t lkey() const noexcept = 0;
  virtual uint32_t rkey() const noexcept = 0;
  // Revokes the keys; 0 or the errno of the failure (the registration is gone either way).
  virtual int release() noexcept = 0;
};

class ContextHandle {
 public:
  virtual ~ContextHandle() = default;

  virtual int wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode) = 0;
  virtual void wake() = 0;
  // Tears everything down; "" or the failures (every step still runs). The object is deleted next.
  virtual std::string close() noexcept = 0;
  virtual int cq_capacity() const noexcept = 0;
  virtual int cq_resizes() const noexcept = 0;
  virtual std::unique_ptr<Registration> register_memory(void* address, std::size_t length, int access) = 0;

  // Listeners: the handle goes to Java (and is in the listener's records).
  virtual int64_t listen(const sockaddr_storage& address, const ChannelOptions& options, int backlog) = 0;
  virtual int listener_port(int64_t listener) const = 0;
  virtual void close_listener(int64_t listener) = 0;

  // Channels: created here (active side) or reported by a kIncoming record (passive side).
  virtual int64_t create_channel(const ChannelOptions& options) = 0;
  virtual ChannelEngine& engine(int64_t channel) = 0;
  virtual void connect(int64_t channel, const sockaddr_storage& remote, const sockaddr_storage* local, int timeout_ms,
                       std::vector<uint8_t> connect_data) = 0;
  virtual void destroy_channel(int64_t channel) = 0;
  // The ring of eager slots (depth x eager bytes), which Java reads messages from.
  virtual ChannelMemory ring(int64_t channel) = 0;
  // "ip port" of this end (local) or of the peer, or "" before there is one.
  virtual std::string address(int64_t channel, bool local) = 0;
  // The link as the transport sees it (the queue pair's attributes; the socket's ends).
  virtual std::string describe_link(int64_t channel) = 0;
  // The text of the admission refusal that closed this client channel ("" if none).
  virtual std::string refusal_text(int64_t channel) = 0;
  // Why the transport ended this channel, in its own words ("" if it has none: a queue pair's failure is its
  // completion status): the stream transports' socket errors and the peer's faults they found.
  virtual std::string failure_text(int64_t channel) = 0;

  // Admission, loop thread, while Java handles a kAdmissionRequest record (context/admission_queue.h).
  // The request behind the record's handle, or null once decided or gone.
  virtual const AdmissionRequest* awaiting(int64_t request) const noexcept = 0;
  // Throws for a request that was decided or is gone.
  virtual void decide(int64_t request, bool accept, uint32_t code, const std::string& text) = 0;
  const AdmissionRequest& admission_request(int64_t request) const {
    const AdmissionRequest* awaiting_request = awaiting(request);
    if (awaiting_request == nullptr) {
      throw RdmaError(ErrorKind::kIllegalArgument, "the connection request was decided or is gone");
    }
    return *awaiting_request;
  }
};

std::unique_ptr<ContextHandle> open_verbs_context(const ContextOptions& options);
// Of the options the transport-neutral part applies (per-listener bounds come with each listen()).
std::unique_ptr<ContextHandle> open_tcp_context(const ContextOptions& options, TransportKind kind);

}  // namespace jrdma::jni
