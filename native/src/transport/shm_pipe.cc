#include "transport/shm_pipe.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "crypto/hmac_sha256.h"

namespace jrdma::tcp {

namespace {

// POSIX shared memory is a file in /dev/shm; opening it directly (not shm_open) keeps the library
// free of librt and of glibc 2.34's symbol versions (docs/architecture.md, "Loads anywhere").
constexpr const char* kDirectory = "/dev/shm";
constexpr const char* kPrefix = "/jrdma-";
constexpr std::size_t kRandomBytes = 12;

std::string path_of(const std::string& name) { return std::string(kDirectory) + name; }

// Only names this library makes: the name comes from the peer, and must not reach another file.
bool well_formed(const std::string& name) {
  std::size_t prefix = std::strlen(kPrefix);
  if (name.size() != prefix + 2 * kRandomBytes || name.compare(0, prefix, kPrefix) != 0) return false;
  return std::all_of(name.begin() + static_cast<long>(prefix), name.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::unique_ptr<ShmPipe> ShmPipe::create(std::string* name) {
  uint8_t random[kRandomBytes];
  if (!crypto::random_bytes(random, sizeof random)) throw RdmaError(ErrorKind::kNative, "no random bytes for a name");
  std::string made = kPrefix;
  static const char kHex[] = "0123456789abcdef";
  for (uint8_t b : random) {
    made += kHex[b >> 4];
    made += kHex[b & 15];
  }
  std::string path = path_of(made);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw_errno("creating the shared-memory rings " + path, errno);
  void* mapping = MAP_FAILED;
  if (::ftruncate(fd, static_cast<off_t>(kMappingBytes)) == 0) {
    mapping = ::mmap(nullptr, kMappingBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  int error = errno;
  ::close(fd);
  if (mapping == MAP_FAILED) {
    ::unlink(path.c_str());
    throw_errno("sizing and mapping the shared-memory rings " + path, error);
  }
  *name = made;
  return std::unique_ptr<ShmPipe>(new ShmPipe(mapping, true, made));
}

std::unique_ptr<ShmPipe> ShmPipe::open(const std::string& name, int* error) {
  if (!well_formed(name)) {
    *error = EINVAL;
    return nullptr;
  }
  int fd = ::open(path_of(name).c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    *error = errno;
    return nullptr;
  }
  // statx (glibc 2.28) rather than fstat, which glibc 2.33 re-versioned.
  struct statx facts {};
  void* mapping = MAP_FAILED;
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE | STATX_UID, &facts) != 0) {
    *error = errno;
  } else if (!S_ISREG(facts.stx_mode) || facts.stx_size != kMappingBytes || facts.stx_uid != ::geteuid()) {
    *error = EINVAL;  // not rings this library made for us
  } else {
    mapping = ::mmap(nullptr, kMappingBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapping == MAP_FAILED) *error = errno;
  }
  ::close(fd);
  if (mapping == MAP_FAILED) return nullptr;
  auto pipe = std::unique_ptr<ShmPipe>(new ShmPipe(mapping, false, name));
  pipe->unlink();  // both sides hold it: the name has done its work
  return pipe;
}

ShmPipe::ShmPipe(void* mapping, bool creator, std::string name)
    : mapping_(mapping), name_(std::move(name)), linked_(true) {
  // The creator writes ring 0 and reads ring 1; the other side the reverse.
  out_ = ring(creator ? 0 : 1);
  out_data_ = data(creator ? 0 : 1);
  in_ = ring(creator ? 1 : 0);
  in_data_ = data(creator ? 1 : 0);
}

ShmPipe::~ShmPipe() {
  unlink();
  ::munmap(mapping_, kMappingBytes);
}

void ShmPipe::unlink() noexcept {
  if (!linked_) return;
  linked_ = false;
  ::unlink(path_of(name_).c_str());  // ENOENT: the peer was first
}

ShmPipe::Ring* ShmPipe::ring(int i) const noexcept {
  return reinterpret_cast<Ring*>(static_cast<uint8_t*>(mapping_) + static_cast<std::size_t>(i) * kRingBytes);
}

uint8_t* ShmPipe::data(int i) const noexcept { return reinterpret_cast<uint8_t*>(ring(i)) + sizeof(Ring); }

// ---- reader ------------------------------------------------------------------------------------

long ShmPipe::read(uint8_t* into, std::size_t length) noexcept {
  uint64_t head = in_->head.value.load(std::memory_order_acquire);
  uint64_t available = head - in_tail_;
  if (available > kCapacity) return -1;  // the peer's index cannot be right
  std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(available, length));
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

long ShmPipe::write(const iovec* parts, int count) noexcept {
  uint64_t tail = out_->tail.value.load(std::memory_order_acquire);
  if (tail > out_head_ || out_head_ - tail > kCapacity) return -1;  // the reader read more than was written
  uint64_t room = kCapacity - (out_head_ - tail);
  if (room == 0) {
    // Full: ask the reader to ring once it made room, then look again (it may have just done so).
    out_->writer_waiting.value.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    tail = out_->tail.value.load(std::memory_order_acquire);
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
