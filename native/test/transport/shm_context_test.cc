// Two TCP contexts that share memory (transport shm), each with its loop on a thread of its own:
// the channel really goes through the rings, and the socket's wake-up bytes are read as they come —
// left there, they piled up until the receive window closed and a wake-up was not delivered (reads
// stalled for ~43 ms now and then in the benchmark).
#include <gtest/gtest.h>
#include <sys/ioctl.h>

#include "test/transport/tcp_loop.h"

namespace jrdma::test {
namespace {

TEST(ShmContext, ReadsGoThroughTheRingsAndWakeUpBytesDoNotPileUp) {
  Loop server(tcp::SharedMemory::kRequired);  // its loop sleeps between messages (event mode): every one rings
  Loop client(tcp::SharedMemory::kRequired);
  const char* failed;
  OpenPair pair = open_pair(server, client, &failed);
  ASSERT_EQ(nullptr, failed) << failed;
  tcp::TcpListener* listener = pair.listener;
  tcp::TcpChannelEntry* channel = pair.client;
  tcp::TcpChannelEntry* accepted = pair.server;
  EventRecord r;
  ASSERT_TRUE(channel->transport->uses_shared_memory());
  ASSERT_TRUE(accepted->transport->uses_shared_memory());

  // One-sided reads: the server's loop serves them without a record for Java or a release that
  // would make it look at the socket again — each wake-up byte is read by the drain or never.
  std::vector<uint8_t> exposed(4096, 7);
  uint32_t key =
      server.context.memory().add(reinterpret_cast<uintptr_t>(exposed.data()), exposed.size(), tcp::kRemoteRead);
  std::vector<uint8_t> into(64);
  for (uint64_t i = 0; i < 3000; ++i) {
    Submission read{};
    read.kind = static_cast<uint8_t>(OpKind::kRead);
    read.seq = i;
    read.local_address = reinterpret_cast<uintptr_t>(into.data());
    read.length = 64;
    read.remote_address = reinterpret_cast<uintptr_t>(exposed.data());
    read.rkey = key;
    channel->engine.submit(&read, 1);
    ASSERT_TRUE(client.await(EventKind::kOpDone, channel->key, &r)) << "read " << i;
    ASSERT_EQ(0, r.a) << "read " << i << " failed";
  }
  EXPECT_EQ(std::vector<uint8_t>(64, 7), into);
  int unread = -1;
  ASSERT_EQ(0, ::ioctl(accepted->transport->fd(), FIONREAD, &unread));
  EXPECT_LE(unread, 16) << "wake-up bytes left in the server's socket after 3000 reads";
  server.context.memory().remove(key);
  client.context.destroy_channel(channel);
  server.context.destroy_channel(accepted);
  server.context.close_listener(listener);
}

}  // namespace
}  // namespace jrdma::test
