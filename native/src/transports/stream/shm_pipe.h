// Shared-memory rings for a channel between two processes on one host: two single-producer,
// single-consumer byte rings in one sealed memory file, one per direction. The TCP channel
// (tcp_channel.h) moves its frames through them once both sides switched to them, and the socket
// stays for wake-ups — one byte when the other side may be asleep — and for noticing the peer go away.
//
// The client creates the file with memfd_create, sizes it and seals it against shrinking, growing
// and further sealing, so no process — the peer included — can pull the memory from under a mapping
// (a truncated file would raise SIGBUS on the next touch). It hands the descriptor to the server
// over a Unix-domain socket (shm_handover.h); the server checks the seals, the size and the type
// before it maps anything, and maps only once the peer proved itself (TcpChannel). There is no name
// in /dev/shm at all. The peer can still write anything into the mapping: indices are checked on
// every read (a distance above the capacity is corruption) and the frames read are checked as any
// frame from a socket is.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace jrdma::tcp {

class ShmPipe {
 public:
  static constexpr uint64_t kCapacity = 1u << 20;  // bytes per direction (a power of two)
  // A writer that finds its ring drained this far into a round starts the next round instead: the
  // rest of the round is skipped (the reader is told where, and checks it), so a ring whose reader
  // keeps up touches its first pages only. Each round through the whole megabyte made the rings of
  // 512 streaming channels 1 GiB of memory that every copy missed in the caches (1.8 Gbit/s where 64
  // channels moved 38).
  static constexpr uint64_t kRewindAfter = 64u << 10;

  // Client: a new sealed file, mapped (its descriptor kept to be handed over). Throws RdmaError with the errno (no memfd, out of memory).
  static std::unique_ptr<ShmPipe> create();
  // Server: the client's file, checked (sealed against shrink, grow and seal; a regular file of
  // exactly the rings' size) but not mapped; takes `fd` either way. Null with the errno, EPERM for
  // missing seals, EINVAL for a wrong size or type.
  static std::unique_ptr<ShmPipe> adopt(int fd, int* error);
  ~ShmPipe();
  ShmPipe(const ShmPipe&) = delete;
  ShmPipe& operator=(const ShmPipe&) = delete;

  // The file's descriptor until handed over or mapped by the server (-1 then).
  int fd() const noexcept { return fd_; }
  // Client: the server has its copy of the descriptor now.
  void handed_over() noexcept;
  // Server: maps the file (idempotent) and closes the descriptor, once the peer proved itself.
  // Throws RdmaError with the errno.
  void map();
  bool mapped() const noexcept { return mapping_ != nullptr; }

  // Reader (one thread; mapped). Copies up to `length` bytes out; 0 when the ring is empty, -1 when
  // the peer's index is corrupt.
  long read(uint8_t* into, std::size_t length) noexcept;
  bool readable() const noexcept;
  // Tells the writer that the reader may sleep (it then rings the socket after writing); returns
  // whether bytes are waiting already (then do not sleep). Ordered against the writer's check.
  bool arm_sleep() noexcept;
  void disarm_sleep() noexcept;
  // Whether the peer found its outgoing ring full and waits for room (then ring the socket).
  bool writer_waits() noexcept;

  // Writer (one thread at a time; mapped). Copies as much of `parts` as fits; returns the bytes
  // written (0: full, and the reader will be asked to ring when it made room), -1 when the peer's
  // index is corrupt.
  long write(const iovec* parts, int count) noexcept;
  // After a write: whether the peer may be asleep and must be woken through the socket.
  bool peer_sleeps() const noexcept;

 private:
  struct alignas(64) Index {
    std::atomic<uint64_t> value;
  };
  struct Ring {             // in the shared mapping
    Index head;             // bytes written so far (the writer's)
    Index tail;             // bytes read so far (the reader's)
    Index reader_sleeping;  // 1: the reader may sleep: ring the socket after writing
    Index writer_waiting;   // 1: the writer found the ring full: ring the socket after reading
    Index rewound_from;     // the writer's last rewind: the head it left, skipped up to ...
    Index rewound_to;       // ... the start of the ring's next round (the writer's)
  };
  static constexpr std::size_t kRingBytes = sizeof(Ring) + kCapacity;
  static constexpr std::size_t kMappingBytes = 2 * kRingBytes;

  ShmPipe(int fd, bool creator) noexcept : fd_(fd), creator_(creator) {}
  void map_file();
  Ring* ring(int i) const noexcept;
  uint64_t reader_tail() const noexcept;
  uint8_t* data(int i) const noexcept;

  int fd_;
  const bool creator_;
  void* mapping_ = nullptr;
  Ring* in_ = nullptr;
  uint8_t* in_data_ = nullptr;
  Ring* out_ = nullptr;
  uint8_t* out_data_ = nullptr;
  // Our own indices, kept here: the copies in the mapping are the peer's to read (and to spoil).
  uint64_t in_tail_ = 0;
  uint64_t out_head_ = 0;
  uint64_t rewound_from_ = 0;  // the writer's last rewind
  uint64_t rewound_to_ = 0;
};

}  // namespace jrdma::tcp
