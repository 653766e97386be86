#include "transports/verbs/verbs_context.h"

#include <fcntl.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "base/error.h"

namespace jrdma {

namespace {

void set_nonblocking(int fd, const char* what) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) throw_errno(std::string("fcntl(") + what + ")", errno);
}

ibv_device_attr query_device(ibv_context* device, const std::string& name) {
  ibv_device_attr attr{};
  if (int rc = ibv_query_device(device, &attr); rc != 0) throw_errno("ibv_query_device(" + name + ")", rc);
  return attr;
}

// The most buffers a shared receive queue grows to: the device's limit, at most 16,384 (64 MiB of
// 4 KiB buffers). 0 where the device has no shared receive queues: each queue pair gets its own.
uint32_t shared_queue_capacity(const ibv_device_attr& attr) {
  if (attr.max_srq <= 0 || attr.max_srq_wr <= 0) return 0;
  return static_cast<uint32_t>(std::min(attr.max_srq_wr, 16384));
}

}  // namespace

VerbsContext::VerbsContext(const ContextOptions& options)
    : name_(options.device_name),
      device_(options.device_name),
      attributes_(query_device(device_.get(), name_)),
      pd_(device_.get()),
      channel_(device_.get()),
      cqs_(device_.get(), options.cq_entries, attributes_.max_cqe, channel_.get()),
      blocks_(pd_.get(), kKeptChannelBlocks),
      shared_queues_(pd_.get(), options.shared_receive_buffers, shared_queue_capacity(attributes_)),
      pending_(options.max_pending_connections),
      loop_(*this, options.adaptive_spin_us, options.receive_budget),
      channels_(options.device_name) {
  {
    max_rd_atomic_ = std::max(1, std::min(16, std::min(attributes_.max_qp_rd_atom, attributes_.max_qp_init_rd_atom)));
    ibv_port_attr port{};
    if (ibv_query_port(device_.get(), static_cast<uint8_t>(options.port), &port) == 0 && port.max_msg_sz > 0) {
      max_read_ = port.max_msg_sz;
    }
    set_nonblocking(device_.get()->async_fd, "async fd, O_NONBLOCK");
    struct Watch {
      int fd;
      Source* source;
      const char* what;
    } watches[] = {{channel_.fd(), &sources_[0], "completion channel"},
                   {device_.get()->async_fd, &sources_[1], "async event fd"},
                   {cm_channel_.fd(), &sources_[2], "rdma_cm event channel"}};
    for (const Watch& w : watches) {
      try {
        loop_.watch(w.fd, EPOLLIN, w.source);
      } catch (const RdmaError& e) {
        throw_errno(std::string("epoll_ctl(ADD, ") + w.what + ")", e.errno_value());
      }
    }
  }
}

VerbsContext::~VerbsContext() { close(); }

std::string VerbsContext::close() noexcept {
  if (closed_) return "";
  closed_ = true;
  std::string failures;
  auto check = [&](int rc, const char* what) {
    if (rc != 0) failures += std::string(failures.empty() ? "" : "; ") + what + " failed: " + errno_name(rc);
  };
  // Channels and listeners the user did not close: tear them down first (QPs before the CQ).
  // A channel created but never connected is in the table too; queued commands only point at them.
  commands_.clear();
  channels_.clear();
  shared_queues_.release();     // no queue pair uses them any more
  refuse_awaiting_of(nullptr);  // requests waiting for an admission decision: their ids go too
  {
    std::lock_guard<std::mutex> lock(listeners_mutex_);
    for (VerbsListener* listener : listeners_) delete listener;  // destroys its cm id
    listeners_.clear();
  }
  loop_.close();
  cm_channel_.release();  // after every id on it
  blocks_.release();      // registrations before the PD
  check(cqs_.release(), "ibv_destroy_cq");
  check(channel_.release(), "ibv_destroy_comp_channel");
  check(pd_.release(), "ibv_dealloc_pd (memory regions still registered?)");
  return failures;
}

std::unique_ptr<verbs::MemoryRegion> VerbsContext::register_memory(void* address, std::size_t length, int access) {
  return std::make_unique<verbs::MemoryRegion>(pd_.get(), address, length, access);
}

// ---- channel table --------------------------------------------------------------------------------

std::unique_ptr<VerbsChannelEntry> VerbsContext::remove_channel(VerbsChannelEntry* channel) noexcept {
  channel->pending.release();
  return channels_.remove(channel);
}

VerbsChannelEntry* VerbsContext::create_channel(const ChannelOptions& options) { return add_channel(options, false); }

VerbsChannelEntry* VerbsContext::add_channel(const ChannelOptions& options, bool passive) {
  ChannelOptions with_context = options;
  with_context.engine.read_chunk = std::min(options.engine.read_chunk, max_read_);
  with_context.engine.max_reads = static_cast<uint32_t>(max_rd_atomic_);
  with_context.engine.budget = &loop_.budget();
  verbs::SharedReceiveQueue* shared = shared_queues_.for_eager(options.engine.eager);
  return channels_.insert([&](uint32_t key) {
    return std::make_unique<VerbsChannelEntry>(key, passive, with_context, blocks_, pd_.get(), cqs_, shared, *this,
                                               *this);
  });
}

// ---- commands from other threads ------------------------------------------------------------------

void VerbsContext::enqueue(const Command& command) noexcept {
  if (!commands_.push(command)) keep_in_object(command, [this](uint32_t key) { return lookup(key); });
  loop_.wake();
}

void VerbsContext::disconnect_later(uint32_t key) noexcept {
  Command command{};
  command.kind = Command::kDisconnect;
  command.key = key;
  enqueue(command);
}

void VerbsContext::destroy_channel(VerbsChannelEntry* channel) {
  Command command{};
  command.kind = Command::kDestroyChannel;
  command.channel = channel;
  enqueue(command);
}

void VerbsContext::close_listener(VerbsListener* listener) {
  listener->closing = true;
  Command command{};
  command.kind = Command::kCloseListener;
  command.listener = listener;
  enqueue(command);
}

void VerbsContext::run_commands() {
  // Every command runs, whatever one of them throws: a lost destroy or listener close would leak
  // its cm id, and rdma_destroy_id of a leaked id blocks the context's close.
  if (commands_.run([this](Command& c) { run_command(c); })) run_deferred_commands();
}

// The commands enqueue could not queue, found in their objects; after the queued ones, so a
// queued connect precedes a deferred destroy of the same channel (a destroyed channel has left the
// table, and its deferred bits with it).
void VerbsContext::run_deferred_commands() {
  run_kept_in_channels<VerbsChannelEntry, VerbsListener>(channels_, [this](Command& c) { run_command(c); });
  run_kept_in_listeners(listeners_, listeners_mutex_, [this](VerbsListener* listener) {
    Command c{};
    c.kind = Command::kCloseListener;
    c.listener = listener;
    run_command(c);
  });
}

void VerbsContext::run_command(Command& c) {
  switch (c.kind) {
    case Command::kConnect:
      start_connect(*c.channel);
      break;
    case Command::kDisconnect:
      if (VerbsChannelEntry* channel = lookup(c.key)) disconnect_quietly(*channel);
      break;
    case Command::kDestroyChannel:
      disconnect_quietly(*c.channel);
      remove_channel(c.channel).reset();  // the QP (its CQ entries go back), the cm id, the registration, the memory
      break;
    case Command::kCloseListener: {
      {
        std::lock_guard<std::mutex> lock(listeners_mutex_);
        listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), c.listener), listeners_.end());
      }
      forget_pending_of(*c.listener);
      refuse_awaiting_of(c.listener);
      delete c.listener;  // destroys its cm id
      break;
    }
  }
}

// The listener goes away before some of its accepted channels settle: they stop counting against
// it (the context's count still holds them until they settle).
void VerbsContext::forget_pending_of(VerbsListener& listener) noexcept {
  if (listener.pending.held == 0) return;
  channels_.for_each([&](VerbsChannelEntry& channel) {
    if (channel.pending.at(listener.pending)) channel.pending.leave_listener();
  });
}

// A disconnect that cannot fail the caller: the channel goes away either way.
void VerbsContext::disconnect_quietly(VerbsChannelEntry& channel) noexcept {
  try {
    channel.transport.disconnect_now();
  } catch (const std::exception&) {
    // rdma_disconnect failing leaves nothing to undo: the QP is destroyed with the channel
  }
}

void VerbsContext::retry_budget(uint32_t key) {
  if (VerbsChannelEntry* channel = lookup(key)) channel->engine.retry_budget();
}

void VerbsContext::tick(std::chrono::steady_clock::time_point now) {
  // Should a CQ notification ever be lost, completions are late by one tick instead of forever:
  // the CQ is armed again before the next sleep.
  cq_armed_ = false;
  cqs_.release_unused();
  if (next_cq_ >= cqs_.all().size()) next_cq_ = 0;
  channels_.for_each([&](VerbsChannelEntry& channel) {
    channel.engine.tick(now);
    // An accepted channel that authenticated (or failed to) no longer counts as pending.
    if (channel.pending.held() && channel.engine.state() != ChannelEngine::State::kStarted &&
        !channel.engine.authenticating()) {
      channel.pending.release();
    }
  });
}

}  // namespace jrdma
