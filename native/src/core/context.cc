#include "core/context.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/async_event.h"
#include "core/error.h"

namespace jrdma {

namespace {

void set_nonblocking(int fd, const char* what) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) throw_errno(std::string("fcntl(") + what + ")", errno);
}

// Tags for epoll_event.data.u32.
constexpr uint32_t kTagCompletion = 1;
constexpr uint32_t kTagAsync = 2;
constexpr uint32_t kTagWake = 3;
constexpr uint32_t kTagCm = 4;

EventRecord record(EventKind kind, int32_t a = 0, int32_t b = 0, int32_t c = 0, int64_t d = 0, int64_t e = 0) {
  return EventRecord{static_cast<int32_t>(kind), a, b, c, d, e};
}

int64_t handle_of(const void* p) { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p)); }

}  // namespace

RdmaCmDevice::RdmaCmDevice(const std::string& name) {
  int count = 0;
  errno = 0;
  list_ = rdma_get_devices(&count);
  if (list_ == nullptr) throw_errno("rdma_get_devices()", errno != 0 ? errno : ENODEV);
  for (int i = 0; i < count; ++i) {
    if (name == ibv_get_device_name(list_[i]->device)) context_ = list_[i];
  }
  if (context_ == nullptr) {
    rdma_free_devices(list_);
    throw RdmaError(ErrorKind::kConfiguration, "RDMA_DEVICE=" + name + " does not exist (any more)");
  }
}

RdmaCmDevice::~RdmaCmDevice() { rdma_free_devices(list_); }

Context::Context(const ContextOptions& options)
    : name_(options.device_name),
      device_(options.device_name),
      pd_(device_.get()),
      channel_(device_.get()),
      cq_(device_.get(), options.cq_entries, channel_.get()) {
  try {
    ibv_device_attr attr{};
    if (int rc = ibv_query_device(device_.get(), &attr); rc != 0) throw_errno("ibv_query_device(" + name_ + ")", rc);
    max_rd_atomic_ = std::max(1, std::min(16, std::min(attr.max_qp_rd_atom, attr.max_qp_init_rd_atom)));
    set_nonblocking(device_.get()->async_fd, "async fd, O_NONBLOCK");
    cm_channel_ = rdma_create_event_channel();
    if (cm_channel_ == nullptr) throw_errno("rdma_create_event_channel()", errno);
    set_nonblocking(cm_channel_->fd, "rdma_cm fd, O_NONBLOCK");
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) throw_errno("eventfd()", errno);
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw_errno("epoll_create1()", errno);
    struct Watch {
      int fd;
      uint32_t tag;
      const char* what;
    } watches[] = {{channel_.fd(), kTagCompletion, "completion channel"},
                   {device_.get()->async_fd, kTagAsync, "async event fd"},
                   {wake_fd_, kTagWake, "eventfd"},
                   {cm_channel_->fd, kTagCm, "rdma_cm event channel"}};
    for (const Watch& w : watches) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u32 = w.tag;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, w.fd, &ev) != 0) {
        throw_errno(std::string("epoll_ctl(ADD, ") + w.what + ")", errno);
      }
    }
    cq_.arm();
  } catch (...) {
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    if (cm_channel_ != nullptr) rdma_destroy_event_channel(cm_channel_);
    throw;
  }
}

Context::~Context() { close(); }

std::string Context::close() noexcept {
  if (closed_) return "";
  closed_ = true;
  std::string failures;
  auto check = [&](int rc, const char* what) {
    if (rc != 0) failures += std::string(failures.empty() ? "" : "; ") + what + " failed: " + errno_name(rc);
  };
  // Channels and listeners the user did not close: tear them down first (QPs before the CQ).
  // A channel may be both in the table and in a queued command: delete each once.
  std::vector<Channel*> channels;
  for (Channel* channel : table_) {
    if (channel != nullptr) channels.push_back(channel);
  }
  {
    std::lock_guard<std::mutex> lock(commands_mutex_);
    for (Command& c : commands_) {
      if (c.channel != nullptr) channels.push_back(c.channel);
    }
    commands_.clear();
  }
  std::sort(channels.begin(), channels.end());
  channels.erase(std::unique(channels.begin(), channels.end()), channels.end());
  for (Channel* channel : channels) delete channel;
  table_.clear();
  {
    std::lock_guard<std::mutex> lock(listeners_mutex_);
    for (Listener* listener : listeners_) {
      rdma_destroy_id(listener->id);
      delete listener;
    }
    listeners_.clear();
  }
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  epoll_fd_ = wake_fd_ = -1;
  if (cm_channel_ != nullptr) rdma_destroy_event_channel(cm_channel_);
  cm_channel_ = nullptr;
  check(cq_.release(), "ibv_destroy_cq");
  check(channel_.release(), "ibv_destroy_comp_channel");
  check(pd_.release(), "ibv_dealloc_pd (memory regions still registered?)");
  return failures;
}

void Context::wake() {
  uint64_t one = 1;
  // EAGAIN means the counter is already non-zero: a wake-up is pending anyway.
  if (write(wake_fd_, &one, sizeof one) < 0 && errno != EAGAIN) throw_errno("write(eventfd)", errno);
}

std::unique_ptr<verbs::MemoryRegion> Context::register_memory(void* address, std::size_t length, int access) {
  return std::make_unique<verbs::MemoryRegion>(pd_.get(), address, length, access);
}

void Context::reserve_cq_entries(int entries) {
  int needed = reserved_cq_entries_ + entries;
  if (needed > cq_.capacity()) {
    // A CQ overrun loses completions silently (rxe-vm.md): grow it before the QP exists.
    int target = std::max(needed, 2 * cq_.capacity());
    if (int rc = ibv_resize_cq(cq_.get(), target); rc != 0) {
      throw_errno("ibv_resize_cq(cqe=" + std::to_string(target) + ")", rc);
    }
  }
  reserved_cq_entries_ = needed;
}

void Context::release_cq_entries(int entries) noexcept { reserved_cq_entries_ -= entries; }

// ---- channel table (loop thread) ----------------------------------------------------------------

uint32_t Context::insert_channel(Channel* channel) {
  uint32_t index;
  if (!free_indexes_.empty()) {
    index = free_indexes_.back();
    free_indexes_.pop_back();
  } else {
    if (table_.size() >= 0xffff) throw RdmaError(ErrorKind::kIllegalState, "too many channels on " + name_);
    index = static_cast<uint32_t>(table_.size());
    table_.push_back(nullptr);
    generations_.push_back(1);
  }
  table_[index] = channel;
  return index | (static_cast<uint32_t>(generations_[index]) << 16);
}

Channel* Context::lookup(uint32_t key) const noexcept {
  uint32_t index = key & 0xffff;
  if (index >= table_.size() || generations_[index] != (key >> 16)) return nullptr;
  return table_[index];
}

void Context::remove_channel(Channel* channel) noexcept {
  uint32_t index = channel->key() & 0xffff;
  if (index < table_.size() && table_[index] == channel) {
    table_[index] = nullptr;
    generations_[index] = static_cast<uint16_t>(generations_[index] + 1 == 0 ? 1 : generations_[index] + 1);
    free_indexes_.push_back(index);
  }
}

// ---- connections ----------------------------------------------------------------------------------

void Context::apply_id_options(rdma_cm_id* id, const ChannelOptions& options) const {
  uint8_t timeout = options.timeout;
  // The ACK timeout of the QP (RDMA_TIMEOUT); rdma_cm would otherwise pick its own.
  rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof timeout);
}

Listener* Context::listen(const sockaddr* address, const ChannelOptions& options, int backlog) {
  auto listener = std::make_unique<Listener>();
  listener->options = options;
  if (rdma_create_id(cm_channel_, &listener->id, listener.get(), RDMA_PS_TCP) != 0) {
    throw_errno("rdma_create_id()", errno);
  }
  if (rdma_bind_addr(listener->id, const_cast<sockaddr*>(address)) != 0) {
    int err = errno;
    rdma_destroy_id(listener->id);
    throw_errno("rdma_bind_addr()", err);
  }
  if (listener->id->verbs != nullptr && listener->id->verbs != device_.get()) {
    std::string other = ibv_get_device_name(listener->id->verbs->device);
    rdma_destroy_id(listener->id);
    throw RdmaError(ErrorKind::kIllegalArgument, "the address belongs to device " + other + ", the context is on " + name_);
  }
  if (rdma_listen(listener->id, backlog) != 0) {
    int err = errno;
    rdma_destroy_id(listener->id);
    throw_errno("rdma_listen()", err);
  }
  std::lock_guard<std::mutex> lock(listeners_mutex_);
  listeners_.push_back(listener.get());
  return listener.release();
}

Channel* Context::create_channel(const ChannelOptions& options) { return new Channel(*this, options, false); }

void Context::connect(Channel* channel, const sockaddr_storage& remote, const sockaddr_storage* local, int timeout_ms) {
  Command command{};
  command.kind = Command::kConnect;
  command.channel = channel;
  command.remote = remote;
  if (local != nullptr) {
    command.local = *local;
    command.has_local = true;
  }
  command.timeout_ms = timeout_ms;
  enqueue(command);
}

void Context::destroy_channel(Channel* channel) {
  Command command{};
  command.kind = Command::kDestroyChannel;
  command.channel = channel;
  enqueue(command);
}

void Context::close_listener(Listener* listener) {
  Command command{};
  command.kind = Command::kCloseListener;
  command.listener = listener;
  enqueue(command);
}

void Context::enqueue(const Command& command) {
  {
    std::lock_guard<std::mutex> lock(commands_mutex_);
    commands_.push_back(command);
  }
  wake();  // the loop runs it at the start of its next wait
}

void Context::fill_conn_param(rdma_conn_param* param, const Channel& channel, uint8_t* private_data) const {
  wire::encode_handshake(channel.local_handshake(), private_data);
  *param = rdma_conn_param{};
  param->private_data = private_data;
  param->private_data_len = static_cast<uint8_t>(wire::kHandshakeSize);
  param->responder_resources = static_cast<uint8_t>(max_rd_atomic_);
  param->initiator_depth = static_cast<uint8_t>(max_rd_atomic_);
  param->retry_count = channel.options().retry_count;
  param->rnr_retry_count = channel.options().rnr_retry;
}

void Context::accept(Channel* channel, uint64_t receive_address, uint32_t lkey) {
  channel->set_receive_buffers(receive_address, lkey, channel->options().depth);
  uint8_t data[wire::kHandshakeSize];
  rdma_conn_param param;
  fill_conn_param(&param, *channel, data);
  apply_id_options(channel->cm_id(), channel->options());
  if (rdma_accept(channel->cm_id(), &param) != 0) throw_errno("rdma_accept()", errno);
  channel->state = ChannelState::kAccepting;
}

void Context::continue_connect(Channel* channel, uint64_t receive_address, uint32_t lkey) {
  channel->set_receive_buffers(receive_address, lkey, channel->options().depth);
  uint8_t data[wire::kHandshakeSize];
  rdma_conn_param param;
  fill_conn_param(&param, *channel, data);
  apply_id_options(channel->cm_id(), channel->options());
  if (rdma_connect(channel->cm_id(), &param) != 0) throw_errno("rdma_connect()", errno);
}

void Context::reject(Channel* channel, wire::RejectReason reason, uint32_t detail) {
  uint8_t data[wire::kRejectSize];
  wire::encode_reject(reason, detail, data);
  rdma_reject(channel->cm_id(), data, static_cast<uint8_t>(sizeof data));
  channel->state = ChannelState::kDisconnected;
}

int Context::run_commands(EventRecord* out, int capacity) {
  std::vector<Command> commands;
  {
    std::lock_guard<std::mutex> lock(commands_mutex_);
    // A connect produces at most one record now; leave the rest for the next round when full.
    std::size_t take = std::min<std::size_t>(commands_.size(), static_cast<std::size_t>(capacity));
    commands.assign(commands_.begin(), commands_.begin() + static_cast<std::ptrdiff_t>(take));
    commands_.erase(commands_.begin(), commands_.begin() + static_cast<std::ptrdiff_t>(take));
  }
  int n = 0;
  for (Command& c : commands) {
    switch (c.kind) {
      case Command::kConnect: {
        Channel* channel = c.channel;
        rdma_cm_id* id = nullptr;
        int failure_errno = 0;
        if (rdma_create_id(cm_channel_, &id, channel, RDMA_PS_TCP) != 0) {
          failure_errno = errno;
        } else {
          channel->attach(id, insert_channel(channel));
          if (rdma_resolve_addr(id, c.has_local ? reinterpret_cast<sockaddr*>(&c.local) : nullptr,
                                reinterpret_cast<sockaddr*>(&c.remote), c.timeout_ms) != 0) {
            failure_errno = errno;
          }
        }
        if (failure_errno != 0) {
          channel->state = ChannelState::kDisconnected;
          out[n++] = record(EventKind::kChannelFailed, static_cast<int32_t>(ChannelFailure::kAddressError),
                            failure_errno, 0, handle_of(channel));
        }
        break;
      }
      case Command::kDestroyChannel: {
        Channel* channel = c.channel;
        channel->disconnect();
        remove_channel(channel);
        delete channel;  // destroys the QP (its CQ entries go back), the header MR and the cm id
        break;
      }
      case Command::kCloseListener: {
        {
          std::lock_guard<std::mutex> lock(listeners_mutex_);
          listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), c.listener), listeners_.end());
        }
        rdma_destroy_id(c.listener->id);
        delete c.listener;
        break;
      }
    }
  }
  return n;
}

void Context::handle_connect_request(rdma_cm_event* event, EventRecord* out, int& n,
                                     std::vector<rdma_cm_id*>& to_destroy) {
  auto* listener = static_cast<Listener*>(event->listen_id->context);
  rdma_cm_id* id = event->id;
  // Refuses with our reason (the client reports it) and tells Java (the server reports it too).
  auto refuse = [&](wire::RejectReason reason, uint32_t detail, uint32_t peer_value) {
    uint8_t data[wire::kRejectSize];
    wire::encode_reject(reason, detail, data);
    rdma_reject(id, data, static_cast<uint8_t>(sizeof data));
    to_destroy.push_back(id);  // after the event is acknowledged
    out[n++] = record(EventKind::kIncomingRejected, static_cast<int32_t>(reason), static_cast<int32_t>(peer_value), 0, 0,
                      handle_of(listener));
  };
  wire::Handshake peer;
  wire::RejectReason reason =
      wire::decode_handshake(event->param.conn.private_data, event->param.conn.private_data_len, &peer);
  if (listener == nullptr || listener->closing) return refuse(wire::RejectReason::kServerClosing, 0, 0);
  if (reason == wire::RejectReason::kVersionMismatch) return refuse(reason, wire::kProtocolVersion, peer.version);
  if (reason != wire::RejectReason::kNone) return refuse(reason, 0, 0);
  if (id->verbs != device_.get()) return refuse(wire::RejectReason::kWrongDevice, 0, 0);
  if (peer.eager != listener->options.eager) {
    return refuse(wire::RejectReason::kEagerMismatch, listener->options.eager, peer.eager);
  }

  auto channel = std::make_unique<Channel>(*this, listener->options, true);
  try {
    channel->attach(id, insert_channel(channel.get()));
    channel->set_peer(peer);
    channel->create_queue_pair();
  } catch (const RdmaError& e) {
    remove_channel(channel.get());
    id->context = nullptr;
    channel->detach();  // the id is rejected and destroyed below, not by the channel
    refuse(wire::RejectReason::kResources, static_cast<uint32_t>(e.errno_value()), 0);
    return;
  }
  channel->state = ChannelState::kAccepting;
  Channel* raw = channel.release();
  out[n++] = record(EventKind::kIncoming, 0, 0, 0, handle_of(raw), handle_of(listener));
  out[n++] = record(EventKind::kChannelReady, static_cast<int32_t>(raw->key()), static_cast<int32_t>(peer.credits),
                    static_cast<int32_t>(peer.eager), handle_of(raw));
}

void Context::handle_cm_event(rdma_cm_event* event, EventRecord* out, int& n, std::vector<rdma_cm_id*>& to_destroy) {
  // JRDMA_TRACE_CM=1 prints every connection-manager event (diagnostics; docs/testing.md).
  static const bool trace = std::getenv("JRDMA_TRACE_CM") != nullptr;
  if (trace) {
    std::fprintf(stderr, "jrdma cm: %s status %d id %p context %p\n", rdma_event_str(event->event), event->status,
                 static_cast<void*>(event->id), event->id->context);
  }
  if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST) return handle_connect_request(event, out, n, to_destroy);
  auto* channel = static_cast<Channel*>(event->id->context);
  if (channel == nullptr || event->listen_id != nullptr) return;
  bool is_listener = false;
  {
    std::lock_guard<std::mutex> lock(listeners_mutex_);
    for (Listener* l : listeners_) is_listener |= (static_cast<void*>(l) == event->id->context);
  }
  if (is_listener) return;  // e.g. DEVICE_REMOVAL on a listening id: nothing to tell a channel
  const int64_t handle = handle_of(channel);
  auto fail = [&](ChannelFailure failure, int status, wire::RejectReason reason = wire::RejectReason::kNone,
                  uint32_t detail = 0) {
    channel->state = ChannelState::kDisconnected;
    out[n++] = record(EventKind::kChannelFailed, static_cast<int32_t>(failure), status, static_cast<int32_t>(reason),
                      handle, detail);
  };
  switch (event->event) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
      apply_id_options(event->id, channel->options());
      if (rdma_resolve_route(event->id, 2000) != 0) fail(ChannelFailure::kRouteError, errno);
      break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
      try {
        channel->create_queue_pair();
        out[n++] = record(EventKind::kChannelReady, static_cast<int32_t>(channel->key()), 0, 0, handle);
      } catch (const RdmaError& e) {
        fail(ChannelFailure::kSetupError, e.errno_value() != 0 ? e.errno_value() : EINVAL);
      }
      break;
    case RDMA_CM_EVENT_ESTABLISHED:
      if (!channel->passive()) {
        wire::Handshake peer;
        wire::RejectReason reason =
            wire::decode_handshake(event->param.conn.private_data, event->param.conn.private_data_len, &peer);
        if (reason != wire::RejectReason::kNone) {
          channel->disconnect();
          fail(ChannelFailure::kRejected, 0, reason, 0);
          break;
        }
        channel->set_peer(peer);
      }
      channel->state = ChannelState::kEstablished;
      out[n++] = record(EventKind::kEstablished, static_cast<int32_t>(channel->peer().credits),
                        static_cast<int32_t>(channel->peer().eager), 0, handle);
      break;
    case RDMA_CM_EVENT_REJECTED: {
      wire::RejectReason reason;
      uint32_t detail = 0;
      if (wire::decode_reject(event->param.conn.private_data, event->param.conn.private_data_len, &reason, &detail)) {
        fail(ChannelFailure::kRejected, event->status, reason, detail);
      } else {
        fail(ChannelFailure::kRefused, event->status);
      }
      break;
    }
    case RDMA_CM_EVENT_ADDR_ERROR:
      fail(ChannelFailure::kAddressError, event->status);
      break;
    case RDMA_CM_EVENT_ROUTE_ERROR:
      fail(ChannelFailure::kRouteError, event->status);
      break;
    case RDMA_CM_EVENT_UNREACHABLE:
      fail(ChannelFailure::kUnreachable, event->status);
      break;
    case RDMA_CM_EVENT_CONNECT_ERROR:
      fail(ChannelFailure::kConnectError, event->status);
      break;
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
      fail(ChannelFailure::kDeviceRemoved, ENODEV);
      break;
    case RDMA_CM_EVENT_DISCONNECTED:
      channel->state = ChannelState::kDisconnected;
      out[n++] = record(EventKind::kDisconnected, 0, 0, 0, handle);
      break;
    default:
      break;  // TIMEWAIT_EXIT, ADDR_CHANGE, ...: nothing to report
  }
}

int Context::drain_cm_events(EventRecord* out, int capacity) {
  int n = 0;
  std::vector<rdma_cm_id*> to_destroy;
  // Each event yields at most two records; stop early rather than overflow the batch.
  while (capacity - n >= 2) {
    rdma_cm_event* event = nullptr;
    if (rdma_get_cm_event(cm_channel_, &event) != 0) break;  // EAGAIN: drained
    handle_cm_event(event, out, n, to_destroy);
    rdma_ack_cm_event(event);
  }
  for (rdma_cm_id* id : to_destroy) rdma_destroy_id(id);
  return n;
}

// ---- completions and events ------------------------------------------------------------------------

int Context::poll_cq(EventRecord* out, int capacity) {
  constexpr int kBatch = 32;
  ibv_wc wc[kBatch];
  int n = 0;
  while (n < capacity) {
    int want = capacity - n < kBatch ? capacity - n : kBatch;
    int got = ibv_poll_cq(cq_.get(), want, wc);
    if (got < 0) throw RdmaError(ErrorKind::kNative, "ibv_poll_cq() failed: " + std::to_string(got), EIO);
    // JRDMA_TRACE_CQ=1 prints every work completion (diagnostics; docs/testing.md).
    static const bool trace = std::getenv("JRDMA_TRACE_CQ") != nullptr;
    for (int i = 0; i < got; ++i) {
      const ibv_wc& w = wc[i];
      if (trace) {
        std::fprintf(stderr, "jrdma cq: key %u %s slot %u status %d opcode %d qp %u\n", wr_id_key(w.wr_id),
                     wr_id_is_receive(w.wr_id) ? "recv" : "send", wr_id_slot(w.wr_id), w.status, w.opcode, w.qp_num);
      }
      Channel* channel = lookup(wr_id_key(w.wr_id));
      if (channel == nullptr) continue;  // the channel was destroyed: a late (flushed) completion
      const int64_t wr_id = static_cast<int64_t>(w.wr_id);
      const uint32_t slot = wr_id_slot(w.wr_id);
      if (wr_id_is_receive(w.wr_id) && w.status == IBV_WC_SUCCESS) {
        if (w.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
          out[n++] = record(EventKind::kImmediate, static_cast<int32_t>(slot), static_cast<int32_t>(ntohl(w.imm_data)), 0,
                            wr_id);
          continue;
        }
        wire::MessageHeader header;
        wire::DecodeStatus status = channel->decode(slot, w.byte_len, &header);
        if (status != wire::DecodeStatus::kOk) {
          out[n++] = record(EventKind::kProtocolError, static_cast<int32_t>(slot), static_cast<int32_t>(status), 0, wr_id);
          continue;
        }
        out[n++] = record(EventKind::kMessage, static_cast<int32_t>(slot), static_cast<int32_t>(header.length),
                          header.credits, wr_id,
                          static_cast<int64_t>(static_cast<uint64_t>(header.type) | (header.id << 8)));
        continue;
      }
      uint32_t imm = (w.wc_flags & IBV_WC_WITH_IMM) ? ntohl(w.imm_data) : 0;
      out[n++] = record(EventKind::kCompletion, w.status, w.opcode, static_cast<int32_t>(w.byte_len), wr_id,
                        static_cast<int64_t>(static_cast<uint64_t>(imm) | (static_cast<uint64_t>(w.qp_num) << 32)));
    }
    if (got < want) break;
  }
  return n;
}

void Context::drain_completion_channel() {
  ibv_cq* ev_cq = nullptr;
  void* ev_ctx = nullptr;
  // Non-blocking fd: returns -1 (EAGAIN) once no notification is left.
  while (ibv_get_cq_event(channel_.get(), &ev_cq, &ev_ctx) == 0) cq_.event_received();
}

int Context::drain_async_events(EventRecord* out, int capacity) {
  int n = 0;
  ibv_async_event event{};
  while (n < capacity && ibv_get_async_event(device_.get(), &event) == 0) {
    out[n++] = record(EventKind::kAsyncEvent, event.event_type, async_event_port(event),
                      static_cast<int32_t>(classify_async_event(event.event_type)));
    ibv_ack_async_event(&event);
  }
  return n;
}

int Context::poll_completions(EventRecord* out, int capacity) {
  if (closed_) throw RdmaError(ErrorKind::kIllegalState, "context " + name_ + " is closed");
  return poll_cq(out, capacity);
}

int Context::busy_wait(EventRecord* out, int capacity, int timeout_ms) {
  // Spin on the CQ in user space; the fds (async events, rdma_cm, wake-ups) cost a system call
  // each — expensive, and very expensive under emulation — so they are checked every 256 spins.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (unsigned spins = 1;; ++spins) {
    int n = poll_cq(out, capacity);
    if (n > 0) return n;
    if ((spins & 255) == 0) {
      n = check_fds(out, capacity, 0);
      if (n > 0) return n;
      if (timeout_ms >= 0 && std::chrono::steady_clock::now() >= deadline) return 0;
      // Idle for a while: let other runnable threads of this CPU go first (an application thread
      // that shares the CPU, e.g. one spinning on memory a peer writes). Returns at once when
      // nothing else wants the CPU.
      sched_yield();
    }
  }
}

int Context::check_fds(EventRecord* out, int capacity, int timeout_ms) {
  epoll_event events[4];
  int ready = epoll_wait(epoll_fd_, events, 4, timeout_ms);
  if (ready < 0) {
    if (errno == EINTR) return 0;
    throw_errno("epoll_wait()", errno);
  }
  int n = 0;
  for (int i = 0; i < ready && capacity - n >= 2; ++i) {
    switch (events[i].data.u32) {
      case kTagCompletion:
        drain_completion_channel();
        poll_pending_ = true;
        break;
      case kTagAsync:
        n += drain_async_events(out + n, capacity - n);
        break;
      case kTagCm:
        n += drain_cm_events(out + n, capacity - n);
        break;
      case kTagWake: {
        uint64_t count;
        if (read(wake_fd_, &count, sizeof count) == sizeof count) {
          out[n++] = record(EventKind::kWakeup);
          n += run_commands(out + n, capacity - n);
        }
        break;
      }
      default:
        break;
    }
  }
  return n;
}

int Context::wait_events(EventRecord* out, int capacity, int timeout_ms, bool busy_poll) {
  if (closed_) throw RdmaError(ErrorKind::kIllegalState, "context " + name_ + " is closed");
  if (capacity < 4) throw RdmaError(ErrorKind::kIllegalArgument, "capacity must be at least 4");
  int n = run_commands(out, capacity);
  if (busy_poll) return n > 0 ? n : busy_wait(out, capacity, timeout_ms);
  for (;;) {
    if (poll_pending_) {
      n += poll_cq(out + n, capacity - n);
      if (n == capacity) return n;  // more may be left: poll_pending_ stays true
      // Re-arm, then poll once more: a completion that arrived between the empty poll and
      // the re-arm raises no event, so it must be picked up here.
      cq_.arm();
      poll_pending_ = false;
      int late = poll_cq(out + n, capacity - n);
      n += late;
      if (late > 0) poll_pending_ = true;
      if (n > 0) return n;
    }
    int got = check_fds(out + n, capacity - n, n > 0 ? 0 : timeout_ms);
    n += got;
    if (n > 0 && !poll_pending_) return n;
    if (n > 0) continue;  // poll the CQ that just signalled, then return everything
    if (!poll_pending_) {
      // Timeout. Poll the CQ on the next call even without a notification: should a
      // notification ever be lost, completions are late by one timeout instead of forever.
      poll_pending_ = true;
      return 0;
    }
  }
}

}  // namespace jrdma
