// Shared-memory rings for a channel between two processes on one host: two single-producer,
// single-consumer byte rings in one POSIX shared-memory object, one per direction. The TCP channel
// (tcp_channel.h) then moves its frames through them instead of through the socket, which stays
// for wake-ups — one byte when the other side may be asleep — and for noticing the peer go away.
//
// The client creates the object (a fresh random name, mode 0600) and names it in its hello; a server
// that can open it is on the same host, in the same /dev/shm and allowed to: that is the proof, no
// host identity is trusted. Both unlink the name as soon as they hold the mapping. The peer can
// write anything into the mapping: indices are checked on every read (a distance above the
// capacity is corruption) and the frames read are checked as any frame from a socket is.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace jrdma::tcp {

class ShmPipe {
 public:
  static constexpr uint64_t kCapacity = 1u << 20;  // bytes per direction (a power of two)

  // Client: a new object with a fresh name (returned in `name`, at most wire::kShmNameSize - 1
  // characters). Throws RdmaError with the errno (no /dev/shm, out of memory).
  static std::unique_ptr<ShmPipe> create(std::string* name);
  // Server: the client's object, or null with the errno when it cannot be opened or is not a pipe
  // (another host, another user, another /dev/shm, a wrong size).
  static std::unique_ptr<ShmPipe> open(const std::string& name, int* error);
  ~ShmPipe();
  ShmPipe(const ShmPipe&) = delete;
  ShmPipe& operator=(const ShmPipe&) = delete;

  // Removes the name (idempotent): the mapping stays until both sides unmap it.
  void unlink() noexcept;

  // Reader (one thread). Copies up to `length` bytes out; 0 when the ring is empty, -1 when the
  // peer's index is corrupt.
  long read(uint8_t* into, std::size_t length) noexcept;
  bool readable() const noexcept;
  // Tells the writer that the reader may sleep (it then rings the socket after writing); returns
  // whether bytes are waiting already (then do not sleep). Ordered against the writer's check.
  bool arm_sleep() noexcept;
  void disarm_sleep() noexcept;
  // Whether the peer found its outgoing ring full and waits for room (then ring the socket).
  bool writer_waits() noexcept;

  // Writer (one thread at a time). Copies as much of `parts` as fits; returns the bytes written (0:
  // full, and the reader will be asked to ring when it made room), -1 when the peer's index is corrupt.
  long write(const iovec* parts, int count) noexcept;
  // After a write: whether the peer may be asleep and must be woken through the socket.
  bool peer_sleeps() const noexcept;

 private:
  struct alignas(64) Index {
    std::atomic<uint64_t> value;
  };
  struct Ring {  // in the shared mapping
    Index head;              // bytes written so far (the writer's)
    Index tail;              // bytes read so far (the reader's)
    Index reader_sleeping;   // 1: the reader may sleep: ring the socket after writing
    Index writer_waiting;    // 1: the writer found the ring full: ring the socket after reading
  };
  static constexpr std::size_t kRingBytes = sizeof(Ring) + kCapacity;
  static constexpr std::size_t kMappingBytes = 2 * kRingBytes;

  ShmPipe(void* mapping, bool creator, std::string name);
  Ring* ring(int i) const noexcept;
  uint8_t* data(int i) const noexcept;

  void* mapping_;
  std::string name_;
  bool linked_;
  Ring* in_;
  uint8_t* in_data_;
  Ring* out_;
  uint8_t* out_data_;
  // Our own indices, kept here: the copies in the mapping are the peer's to read (and to spoil).
  uint64_t in_tail_ = 0;
  uint64_t out_head_ = 0;
};

}  // namespace jrdma::tcp
