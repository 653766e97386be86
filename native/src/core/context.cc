#include "core/context.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

#include "core/async_event.h"
#include "core/error.h"
#include "verbs/device_list.h"

namespace jrdma {

namespace {

// Finds and opens the named device; the list is freed before returning (the context stays valid).
ibv_device* find_device(const verbs::DeviceList& list, const std::string& name) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (name == ibv_get_device_name(list[i])) return list[i];
  }
  throw RdmaError(ErrorKind::kConfiguration, "RDMA_DEVICE=" + name + " does not exist (any more)");
}

void set_nonblocking(int fd, const char* what) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) throw_errno(std::string("fcntl(") + what + ")", errno);
}

// Tags for epoll_event.data.u32.
constexpr uint32_t kTagCompletion = 1;
constexpr uint32_t kTagAsync = 2;
constexpr uint32_t kTagWake = 3;

struct DeviceOpener {
  verbs::DeviceList list;
  ibv_device* device;
  explicit DeviceOpener(const std::string& name) : device(find_device(list, name)) {}
};

}  // namespace

Context::Context(const ContextOptions& options)
    : name_(options.device_name),
      device_(DeviceOpener(options.device_name).device),
      pd_(device_.get()),
      channel_(device_.get()),
      cq_(device_.get(), options.cq_entries, channel_.get()) {
  try {
    set_nonblocking(device_.get()->async_fd, "async fd, O_NONBLOCK");
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
                   {wake_fd_, kTagWake, "eventfd"}};
    for (const Watch& w : watches) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u32 = w.tag;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, w.fd, &ev) != 0) throw_errno(std::string("epoll_ctl(ADD, ") + w.what + ")", errno);
    }
    cq_.arm();
  } catch (...) {
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
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
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  epoll_fd_ = wake_fd_ = -1;
  check(cq_.release(), "ibv_destroy_cq");
  check(channel_.release(), "ibv_destroy_comp_channel");
  check(pd_.release(), "ibv_dealloc_pd (memory regions still registered?)");
  return failures;  // the device itself is closed by device_'s destructor
}

void Context::wake() {
  uint64_t one = 1;
  // EAGAIN means the counter is already non-zero: a wake-up is pending anyway.
  if (write(wake_fd_, &one, sizeof one) < 0 && errno != EAGAIN) throw_errno("write(eventfd)", errno);
}

std::unique_ptr<verbs::MemoryRegion> Context::register_memory(void* address, std::size_t length, int access) {
  return std::make_unique<verbs::MemoryRegion>(pd_.get(), address, length, access);
}

int Context::poll_cq(EventRecord* out, int capacity) {
  constexpr int kBatch = 32;
  ibv_wc wc[kBatch];
  int n = 0;
  while (n < capacity) {
    int want = capacity - n < kBatch ? capacity - n : kBatch;
    int got = ibv_poll_cq(cq_.get(), want, wc);
    if (got < 0) throw RdmaError(ErrorKind::kNative, "ibv_poll_cq() failed: " + std::to_string(got), EIO);
    for (int i = 0; i < got; ++i) {
      EventRecord& r = out[n++];
      r.kind = static_cast<int32_t>(EventKind::kCompletion);
      r.a = wc[i].status;
      r.b = wc[i].opcode;
      r.c = static_cast<int32_t>(wc[i].byte_len);
      r.d = static_cast<int64_t>(wc[i].wr_id);
      r.e = static_cast<int64_t>(static_cast<uint64_t>(wc[i].imm_data) | (static_cast<uint64_t>(wc[i].qp_num) << 32));
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
    EventRecord& r = out[n++];
    r.kind = static_cast<int32_t>(EventKind::kAsyncEvent);
    r.a = event.event_type;
    r.b = async_event_port(event);
    r.c = static_cast<int32_t>(classify_async_event(event.event_type));
    r.d = 0;
    r.e = 0;
    ibv_ack_async_event(&event);
  }
  return n;
}

int Context::wait_events(EventRecord* out, int capacity, int timeout_ms, bool busy_poll) {
  if (closed_) throw RdmaError(ErrorKind::kIllegalState, "context " + name_ + " is closed");
  if (capacity <= 0) throw RdmaError(ErrorKind::kIllegalArgument, "capacity must be positive");
  int n = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (;;) {
    if (poll_pending_ || busy_poll) {
      n += poll_cq(out + n, capacity - n);
      if (n == capacity) return n;  // more may be left: poll_pending_ stays true
      if (!busy_poll) {
        // Re-arm, then poll once more: a completion that arrived between the empty poll and
        // the re-arm raises no event, so it must be picked up here.
        cq_.arm();
        poll_pending_ = false;
        int late = poll_cq(out + n, capacity - n);
        n += late;
        if (late > 0) poll_pending_ = true;
      }
      if (n > 0 && !busy_poll) return n;
    }
    epoll_event events[3];
    int ready = epoll_wait(epoll_fd_, events, 3, (busy_poll || n > 0) ? 0 : timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw_errno("epoll_wait()", errno);
    }
    for (int i = 0; i < ready; ++i) {
      switch (events[i].data.u32) {
        case kTagCompletion:
          drain_completion_channel();
          poll_pending_ = true;
          break;
        case kTagAsync:
          n += drain_async_events(out + n, capacity - n);
          break;
        case kTagWake: {
          uint64_t count;
          if (read(wake_fd_, &count, sizeof count) == sizeof count && n < capacity) {
            out[n++] = EventRecord{static_cast<int32_t>(EventKind::kWakeup), 0, 0, 0, 0, 0};
          }
          break;
        }
        default:
          break;
      }
      if (n == capacity) return n;
    }
    if (n > 0 && (busy_poll || !poll_pending_)) return n;
    if (n > 0) continue;  // poll the CQ that just signalled, then return everything
    if (ready == 0 && !busy_poll) return 0;  // timeout
    if (busy_poll && timeout_ms >= 0 && std::chrono::steady_clock::now() >= deadline) return 0;
  }
}

}  // namespace jrdma
