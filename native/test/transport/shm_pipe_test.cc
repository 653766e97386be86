// The shared-memory rings (transport/shm_pipe.h) in one process: bytes through both directions
// across the wrap-around, a full ring and its wake-up flag, the sleep handshake, names a peer could
// use to reach other files, and indices a hostile peer spoiled.
#include "transport/shm_pipe.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

namespace jrdma::tcp {
namespace {

std::vector<uint8_t> pattern(std::size_t n, int seed) {
  std::vector<uint8_t> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(seed * 31 + i * 7);
  return bytes;
}

TEST(ShmPipe, CarriesBytesBothWaysAcrossTheWrapAround) {
  std::string name;
  auto client = ShmPipe::create(&name);
  int error = 0;
  auto server = ShmPipe::open(name, &error);
  ASSERT_NE(nullptr, server) << error;
  EXPECT_NE(0, ::access(("/dev/shm" + name).c_str(), F_OK)) << "opened: the name is gone";
  std::vector<uint8_t> chunk = pattern(300000, 1);
  std::vector<uint8_t> got(chunk.size());
  for (int round = 0; round < 10; ++round) {  // 3 MB through 1 MiB rings: every round wraps somewhere else
    iovec part{chunk.data(), chunk.size()};
    ASSERT_EQ(static_cast<long>(chunk.size()), client->write(&part, 1));
    ASSERT_TRUE(server->readable());
    ASSERT_EQ(static_cast<long>(got.size()), server->read(got.data(), got.size()));
    ASSERT_EQ(chunk, got) << "round " << round;
    ASSERT_EQ(static_cast<long>(chunk.size()), server->write(&part, 1));
    ASSERT_EQ(static_cast<long>(got.size()), client->read(got.data(), got.size()));
    ASSERT_EQ(chunk, got);
  }
  EXPECT_EQ(0, client->read(got.data(), got.size())) << "empty";
}

TEST(ShmPipe, AFullRingAsksTheReaderToRingAndTheSleepHandshakeWorks) {
  std::string name;
  auto client = ShmPipe::create(&name);
  int error = 0;
  auto server = ShmPipe::open(name, &error);
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

TEST(ShmPipe, NamesOtherThanOursAreNotOpened) {
  int error = 0;
  for (std::string name : {"/../../etc/passwd", "/jrdma-", "/jrdma-0123456789abcdef0123456/", "/jrdma-0123456789ABCDEF01234567",
                           "jrdma-0123456789abcdef012345678"}) {
    EXPECT_EQ(nullptr, ShmPipe::open(name, &error)) << name;
    EXPECT_EQ(EINVAL, error) << name;
  }
  EXPECT_EQ(nullptr, ShmPipe::open("/jrdma-0123456789abcdef01234567", &error)) << "well formed, but nobody made it";
  EXPECT_EQ(ENOENT, error);
}

TEST(ShmPipe, IndicesThePeerSpoiledAreCaughtNotFollowed) {
  std::string name;
  auto client = ShmPipe::create(&name);
  int fd = ::open(("/dev/shm" + name).c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  void* raw = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  ASSERT_NE(MAP_FAILED, raw);
  int error = 0;
  auto server = ShmPipe::open(name, &error);
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

}  // namespace
}  // namespace jrdma::tcp
