#include "transports/stream/shm_pipe.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"

namespace jrdma::tcp {

namespace {
// What makes the file safe to map: nobody can change its size, nor add a seal (F_SEAL_FUTURE_WRITE
// or F_SEAL_WRITE would stop our writes through the mapping).
constexpr int kRequiredSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
}  // namespace

std::unique_ptr<ShmPipe> ShmPipe::create() {
  int fd = ::memfd_create("jrdma-rings", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) throw_errno("memfd_create(jrdma-rings) for shared-memory rings", errno);
  auto pipe = std::unique_ptr<ShmPipe>(new ShmPipe(fd, true));
  if (::ftruncate(fd, static_cast<off_t>(kMappingBytes)) != 0) {
    throw_errno("ftruncate(" + std::to_string(kMappingBytes) + ") of the shared-memory rings", errno);
  }
  if (::fcntl(fd, F_ADD_SEALS, kRequiredSeals) != 0)
    throw_errno("fcntl(F_ADD_SEALS) on the shared-memory rings", errno);
  pipe->map_file();
  return pipe;
}

std::unique_ptr<ShmPipe> ShmPipe::adopt(int fd, int* error) {
  auto pipe = std::unique_ptr<ShmPipe>(new ShmPipe(fd, false));  // closes fd if refused
  int seals = ::fcntl(fd, F_GET_SEALS);
  // statx (glibc 2.28) rather than fstat, which glibc 2.33 re-versioned.
  struct statx facts {};
  if (seals < 0) {
    *error = errno == EINVAL ? EPERM : errno;  // not a file that can be sealed at all
  } else if ((seals & kRequiredSeals) != kRequiredSeals) {
    *error = EPERM;  // the peer could still shrink it under our mapping
  } else if (::statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE, &facts) != 0) {
    *error = errno;
  } else if (!S_ISREG(facts.stx_mode) || facts.stx_size != kMappingBytes) {
    *error = EINVAL;  // not rings this library made
  } else {
    return pipe;
  }
  return nullptr;
}

void ShmPipe::handed_over() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void ShmPipe::map() {
  if (mapping_ != nullptr) return;
  map_file();
  handed_over();  // the descriptor has done its work
}

void ShmPipe::map_file() {
  void* mapping = ::mmap(nullptr, kMappingBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (mapping == MAP_FAILED) throw_errno("mmap of the shared-memory rings", errno);
  mapping_ = mapping;
  // The creator writes ring 0 and reads ring 1; the other side the reverse.
  out_ = ring(creator_ ? 0 : 1);
  out_data_ = data(creator_ ? 0 : 1);
  in_ = ring(creator_ ? 1 : 0);
  in_data_ = data(creator_ ? 1 : 0);
}

ShmPipe::~ShmPipe() {
  if (fd_ >= 0) ::close(fd_);
  if (mapping_ != nullptr) ::munmap(mapping_, kMappingBytes);
}

ShmPipe::Ring* ShmPipe::ring(int i) const noexcept {
  return reinterpret_cast<Ring*>(static_cast<uint8_t*>(mapping_) + static_cast<std::size_t>(i) * kRingBytes);
}

uint8_t* ShmPipe::data(int i) const noexcept { return reinterpret_cast<uint8_t*>(ring(i)) + sizeof(Ring); }

// ---- reader ------------------------------------------------------------------------------------

long ShmPipe::read(uint8_t* into, std::size_t length) noexcept {
  uint64_t head = in_->head.value.load(std::memory_order_acquire);
  if (head != in_tail_ && (in_tail_ & (kCapacity - 1)) != 0 &&
      in_->rewound_from.value.load(std::memory_order_relaxed) == in_tail_) {
    // The writer found everything read and rewound: its bytes go on at the start of the next round.
    uint64_t to = in_->rewound_to.value.load(std::memory_order_relaxed);
    if (to <= in_tail_ || to > head || (to & (kCapacity - 1)) != 0 || to - in_tail_ > kCapacity) return -1;
    in_tail_ = to;
    in_->tail.value.store(in_tail_, std::memory_order_release);
  }
  if (head - in_tail_ > kCapacity) return -1;  // the peer's index cannot be right
  std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(head - in_tail_, length));
  if (n == 0) return 0;
  std::size_t offset = static_cast<std::size_t>(in_tail_ & (kCapacity - 1));
  std::size_t first = std::min<std::size_t>(n, kCapacity - offset);
  std::memcpy(into, in_data_ + offset, first);
  std::memcpy(into + first, in_data_, n - first);
  in_tail_ += n;
  in_->tail.value.store(in_tail_, std::memory_order_release);
  return static_cast<long>(n);
}

bool ShmPipe::readable() const noexcept { return in_->head.value.load(std::memory_order_acquire) != in_tail_; }

bool ShmPipe::arm_sleep() noexcept {
  in_->reader_sleeping.value.store(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // against the writer's fence in peer_sleeps()
  return readable();
}

void ShmPipe::disarm_sleep() noexcept { in_->reader_sleeping.value.store(0, std::memory_order_relaxed); }

bool ShmPipe::writer_waits() noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the tail stored by read() first
  if (in_->writer_waiting.value.load(std::memory_order_relaxed) == 0) return false;
  in_->writer_waiting.value.store(0, std::memory_order_relaxed);
  return true;
}

// ---- writer ------------------------------------------------------------------------------------

// The reader's tail, as far as room goes: the start of the round the writer rewound to while the
// reader has not taken the rewind yet (nothing of the skipped round is unread then).
uint64_t ShmPipe::reader_tail() const noexcept {
  uint64_t tail = out_->tail.value.load(std::memory_order_acquire);
  return tail == rewound_from_ && rewound_to_ > tail ? rewound_to_ : tail;
}

long ShmPipe::write(const iovec* parts, int count) noexcept {
  uint64_t tail = reader_tail();
  if (tail > out_head_ || out_head_ - tail > kCapacity) return -1;  // the reader read more than was written
  if (uint64_t position = out_head_ & (kCapacity - 1); tail == out_head_ && position >= kRewindAfter) {
    // Drained: go on at the start of the next round; published with the head below.
    rewound_from_ = out_head_;
    rewound_to_ = out_head_ + (kCapacity - position);
    out_->rewound_from.value.store(rewound_from_, std::memory_order_relaxed);
    out_->rewound_to.value.store(rewound_to_, std::memory_order_relaxed);
    out_head_ = tail = rewound_to_;
  }
  uint64_t room = kCapacity - (out_head_ - tail);
  if (room == 0) {
    // Full: ask the reader to ring once it made room, then look again (it may have just done so).
    out_->writer_waiting.value.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    tail = reader_tail();
    if (tail > out_head_ || out_head_ - tail > kCapacity) return -1;
    room = kCapacity - (out_head_ - tail);
    if (room == 0) return 0;
  }
  uint64_t written = 0;
  for (int i = 0; i < count && written < room; ++i) {
    const auto* from = static_cast<const uint8_t*>(parts[i].iov_base);
    std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(parts[i].iov_len, room - written));
    std::size_t offset = static_cast<std::size_t>((out_head_ + written) & (kCapacity - 1));
    std::size_t first = std::min<std::size_t>(n, kCapacity - offset);
    std::memcpy(out_data_ + offset, from, first);
    std::memcpy(out_data_, from + first, n - first);
    written += n;
  }
  out_head_ += written;
  out_->head.value.store(out_head_, std::memory_order_release);
  return static_cast<long>(written);
}

bool ShmPipe::peer_sleeps() const noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // against the reader's fence in arm_sleep()
  return out_->reader_sleeping.value.load(std::memory_order_relaxed) != 0;
}

}  // namespace jrdma::tcp
