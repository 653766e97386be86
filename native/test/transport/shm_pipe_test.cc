// The shared-memory rings (transports/stream/shm_pipe.h) in one process: bytes through both directions
// across the wrap-around, a full ring and its wake-up flag, the sleep handshake, files a peer could
// hand over instead (unsealed, wrong size, not memory), a peer trying to shrink or grow the file
// under the mapping, a drained ring's rewind, and indices and rewinds a hostile peer spoiled.
#include "transports/stream/shm_pipe.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

namespace jrdma::tcp {
namespace {

// The server's side of `client`'s rings, as it gets them: a copy of the descriptor, checked, mapped.
std::unique_ptr<ShmPipe> server_of(const ShmPipe& client) {
  int error = 0;
  auto server = ShmPipe::adopt(::fcntl(client.fd(), F_DUPFD_CLOEXEC, 0), &error);
  EXPECT_NE(nullptr, server) << error;
  if (server != nullptr) server->map();
  return server;
}

std::vector<uint8_t> pattern(std::size_t n, int seed) {
  std::vector<uint8_t> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(seed * 31 + i * 7);
  return bytes;
}

TEST(ShmPipe, CarriesBytesBothWaysAcrossTheWrapAround) {
  auto client = ShmPipe::create();
  auto server = server_of(*client);
  ASSERT_NE(nullptr, server);
  client->handed_over();
  EXPECT_EQ(-1, client->fd());
  EXPECT_EQ(-1, server->fd()) << "mapped: the descriptor is closed";
  std::vector<uint8_t> chunk = pattern(300000, 1);
  std::vector<uint8_t> got(chunk.size());
  // 3 MB through 1 MiB rings, the reader a byte behind at every write (a drained ring would rewind
  // instead of wrapping): every round wraps somewhere else.
  iovec part{chunk.data(), chunk.size()};
  ASSERT_EQ(static_cast<long>(chunk.size()), client->write(&part, 1));
  ASSERT_EQ(static_cast<long>(chunk.size()), server->write(&part, 1));
  for (int round = 0; round < 10; ++round) {
    ASSERT_TRUE(server->readable());
    ASSERT_EQ(static_cast<long>(got.size() - 1), server->read(got.data(), got.size() - 1));
    ASSERT_EQ(static_cast<long>(chunk.size()), client->write(&part, 1));
    ASSERT_EQ(1, server->read(got.data() + got.size() - 1, 1));
    ASSERT_EQ(chunk, got) << "round " << round;
    ASSERT_EQ(static_cast<long>(got.size() - 1), client->read(got.data(), got.size() - 1));
    ASSERT_EQ(static_cast<long>(chunk.size()), server->write(&part, 1));
    ASSERT_EQ(1, client->read(got.data() + got.size() - 1, 1));
    ASSERT_EQ(chunk, got);
  }
  EXPECT_EQ(static_cast<long>(got.size()), client->read(got.data(), got.size()));
  EXPECT_EQ(static_cast<long>(got.size()), server->read(got.data(), got.size()));
  EXPECT_EQ(0, client->read(got.data(), got.size())) << "empty";
}

// A writer that finds its ring drained past kRewindAfter goes on at the ring's start: a ring whose
// reader keeps up stays in its first pages (its memory and the caches' share of it stay small).
TEST(ShmPipe, ADrainedRingStartsAgainAtItsFirstByte) {
  auto client = ShmPipe::create();
  void* raw = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, client->fd(), 0);  // ring 0's indices
  ASSERT_NE(MAP_FAILED, raw);
  const auto* indices = static_cast<const uint64_t*>(raw);  // head [0], tail [8]
  auto server = server_of(*client);
  ASSERT_NE(nullptr, server);
  std::vector<uint8_t> chunk = pattern(40000, 3);
  std::vector<uint8_t> got(chunk.size());
  iovec part{chunk.data(), chunk.size()};
  for (int round = 0; round < 100; ++round) {  // 4 MB, never more than 64 KiB + 40,000 bytes into a round
    ASSERT_EQ(static_cast<long>(chunk.size()), client->write(&part, 1));
    ASSERT_LE(indices[0] % ShmPipe::kCapacity, ShmPipe::kRewindAfter + chunk.size()) << "round " << round;
    ASSERT_EQ(static_cast<long>(got.size()), server->read(got.data(), got.size()));
    ASSERT_EQ(chunk, got) << "round " << round;
    ASSERT_EQ(indices[0], indices[8]) << "the reader took the rewind";
  }
  EXPECT_GT(indices[0], 3 * ShmPipe::kCapacity) << "rounds were skipped";
  // Not drained: the writer appends, rewinding only once the reader caught up.
  ASSERT_EQ(static_cast<long>(chunk.size()), client->write(&part, 1));
  ASSERT_EQ(static_cast<long>(chunk.size()), client->write(&part, 1));
  std::vector<uint8_t> both(2 * chunk.size());
  ASSERT_EQ(static_cast<long>(both.size()), server->read(both.data(), both.size()));
  EXPECT_TRUE(std::equal(chunk.begin(), chunk.end(), both.begin() + static_cast<long>(chunk.size())));
  // Right after a rewind, before the reader took it, the whole ring is room: nothing of the round
  // it left is unread.
  std::vector<uint8_t> big = pattern(ShmPipe::kCapacity, 4);
  iovec whole{big.data(), big.size()};
  ASSERT_GE(indices[0] % ShmPipe::kCapacity, ShmPipe::kRewindAfter);
  EXPECT_EQ(static_cast<long>(ShmPipe::kCapacity), client->write(&whole, 1));
  EXPECT_EQ(0, indices[0] % ShmPipe::kCapacity);
  std::vector<uint8_t> all(ShmPipe::kCapacity);
  EXPECT_EQ(static_cast<long>(ShmPipe::kCapacity), server->read(all.data(), all.size()));
  EXPECT_EQ(big, all);
  ::munmap(raw, 4096);
}

TEST(ShmPipe, AFullRingAsksTheReaderToRingAndTheSleepHandshakeWorks) {
  auto client = ShmPipe::create();
  auto server = server_of(*client);
  ASSERT_NE(nullptr, server);
  std::vector<uint8_t> big = pattern(ShmPipe::kCapacity + 100, 2);
  iovec part{big.data(), big.size()};
  EXPECT_EQ(static_cast<long>(ShmPipe::kCapacity), client->write(&part, 1)) << "as much as fits";
  EXPECT_EQ(0, client->write(&part, 1)) << "full";
  std::vector<uint8_t> got(4096);
  EXPECT_EQ(4096, server->read(got.data(), got.size()));
  EXPECT_TRUE(server->writer_waits()) << "the writer found it full: the reader rings once";
  EXPECT_FALSE(server->writer_waits());
  EXPECT_TRUE(server->arm_sleep()) << "bytes are waiting: do not sleep";
  server->disarm_sleep();
  std::vector<uint8_t> rest(ShmPipe::kCapacity);
  EXPECT_EQ(static_cast<long>(ShmPipe::kCapacity - 4096), server->read(rest.data(), rest.size()));
  EXPECT_FALSE(server->arm_sleep()) << "empty: the reader may sleep";
  EXPECT_TRUE(client->peer_sleeps()) << "so the writer rings the socket";
  server->disarm_sleep();
  EXPECT_FALSE(client->peer_sleeps());
}

TEST(ShmPipe, FilesThatAreNotSealedRingsAreRefusedBeforeAnythingIsMapped) {
  int error = 0;
  // A memory file of the right size that its sender can still shrink.
  int unsealed = ::memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_EQ(0, ::ftruncate(unsealed, 2 * 1024 * 1024 + 512));
  EXPECT_EQ(nullptr, ShmPipe::adopt(unsealed, &error));
  EXPECT_EQ(EPERM, error);
  // Sealed against shrinking only: it could still be sealed against our writes.
  int half = ::memfd_create("half", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_EQ(0, ::ftruncate(half, 4096));
  ASSERT_EQ(0, ::fcntl(half, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW));
  EXPECT_EQ(nullptr, ShmPipe::adopt(half, &error));
  EXPECT_EQ(EPERM, error);
  // Sealed, but of another size.
  int small = ::memfd_create("small", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_EQ(0, ::ftruncate(small, 4096));
  ASSERT_EQ(0, ::fcntl(small, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
  EXPECT_EQ(nullptr, ShmPipe::adopt(small, &error));
  EXPECT_EQ(EINVAL, error);
  // Not a memory file at all: a pipe, a regular file.
  int ends[2];
  ASSERT_EQ(0, ::pipe2(ends, O_CLOEXEC));
  ::close(ends[1]);
  EXPECT_EQ(nullptr, ShmPipe::adopt(ends[0], &error));
  EXPECT_EQ(EPERM, error);
  EXPECT_EQ(nullptr, ShmPipe::adopt(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC), &error));
  EXPECT_EQ(EPERM, error);
}

TEST(ShmPipe, NoProcessCanShrinkOrGrowTheRingsUnderTheMapping) {
  auto client = ShmPipe::create();
  auto server = server_of(*client);
  ASSERT_NE(nullptr, server);
  // The peer's copy of the descriptor is all a hostile peer has: it cannot change the size, nor
  // take the seals off, nor seal our writes away.
  int peer = ::fcntl(client->fd(), F_DUPFD_CLOEXEC, 0);
  EXPECT_NE(0, ::ftruncate(peer, 0));
  EXPECT_EQ(EPERM, errno);
  EXPECT_NE(0, ::ftruncate(peer, 64 << 20));
  EXPECT_EQ(EPERM, errno);
  EXPECT_NE(0, ::fcntl(peer, F_ADD_SEALS, F_SEAL_WRITE));
  EXPECT_EQ(EPERM, errno);
  ::close(peer);
  uint8_t byte = 7;
  iovec part{&byte, 1};
  EXPECT_EQ(1, client->write(&part, 1)) << "the mappings still work";
  uint8_t got = 0;
  EXPECT_EQ(1, server->read(&got, 1));
  EXPECT_EQ(7, got);
}

TEST(ShmPipe, IndicesThePeerSpoiledAreCaughtNotFollowed) {
  auto client = ShmPipe::create();
  void* raw = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, client->fd(), 0);  // the peer's view
  ASSERT_NE(MAP_FAILED, raw);
  auto server = server_of(*client);
  ASSERT_NE(nullptr, server);
  // Ring 0 (client to server) starts with the writer's head: far beyond anything written.
  static_cast<uint64_t*>(raw)[0] = 10 * ShmPipe::kCapacity;
  std::vector<uint8_t> got(64);
  EXPECT_EQ(-1, server->read(got.data(), got.size()));
  // Ring 0's tail (the reader's, 64 bytes in) moved backwards by the server side: the client's write sees it.
  static_cast<uint64_t*>(raw)[8] = ~uint64_t{0};
  uint8_t byte = 1;
  iovec part{&byte, 1};
  EXPECT_EQ(-1, client->write(&part, 1));
  ::munmap(raw, 4096);
}

TEST(ShmPipe, ARewindThePeerSpoiledIsCaughtNotFollowed) {
  for (uint64_t to : {uint64_t{0}, ShmPipe::kCapacity + 1, 3 * ShmPipe::kCapacity, 100 * ShmPipe::kCapacity}) {
    auto client = ShmPipe::create();
    uint64_t* ring = static_cast<uint64_t*>(::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, client->fd(), 0));
    ASSERT_NE(MAP_FAILED, static_cast<void*>(ring));
    auto server = server_of(*client);
    ASSERT_NE(nullptr, server);
    std::vector<uint8_t> chunk = pattern(ShmPipe::kRewindAfter + 10, 5);
    iovec part{chunk.data(), chunk.size()};
    ASSERT_EQ(static_cast<long>(chunk.size()), client->write(&part, 1));
    ASSERT_EQ(static_cast<long>(chunk.size()), server->read(chunk.data(), chunk.size()));
    // The peer claims a rewind from where the reader stands: to a place that is no round's start,
    // behind the reader, beyond the head, or more than a ring ahead.
    ring[32] = chunk.size();                                           // rewound_from
    ring[40] = to;                                                     // rewound_to
    ring[0] = to > ShmPipe::kCapacity ? to : chunk.size() + 100;       // head
    if (to == 100 * ShmPipe::kCapacity) ring[0] = ShmPipe::kCapacity;  // rewound_to beyond the head
    std::vector<uint8_t> got(64);
    EXPECT_EQ(-1, server->read(got.data(), got.size())) << "rewound_to " << to;
    ::munmap(ring, 4096);
  }
}

}  // namespace
}  // namespace jrdma::tcp
