// Two TCP contexts that share memory (transport shm), each with its loop on a thread of its own:
// the channel really goes through the rings, and the socket's wake-up bytes are read as they come —
// left there, they piled up until the receive window closed and a wake-up was not delivered (reads
// stalled for ~43 ms now and then in the benchmark).
#include <gtest/gtest.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

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

// Many channels over shared memory, idle: beyond the few always looked at, their rings doze (the loop
// no longer looks at them on every poll, their peers ring the socket after writing), and a message
// on each still arrives — the doorbell wakes its ring.
TEST(ShmContext, IdleRingsDozeAndTheirPeersDoorbellsWakeThem) {
  constexpr std::size_t kChannels = 80;  // more than RingWatch::kAlwaysAwake
  // All connect at once: none may be refused for too many pending, however slowly the server opens them.
  ContextOptions many_pending;
  many_pending.max_pending_connections = static_cast<uint32_t>(kChannels);
  Loop server(tcp::SharedMemory::kRequired, many_pending, PollMode::kBusy);  // polls all the time: rings doze soon
  Loop client(tcp::SharedMemory::kRequired);
  tcp::TcpListener* listener =
      listen_on_any_port(server, options(), static_cast<int>(kChannels), static_cast<uint32_t>(kChannels));
  std::vector<tcp::TcpChannelEntry*> channels;
  for (std::size_t i = 0; i < kChannels; ++i) {
    channels.push_back(client.context.create_channel(options()));
    client.track(channels.back());
    client.context.connect(channels.back(), loopback(listener->port), 5000);
  }
  EventRecord r;
  for (tcp::TcpChannelEntry* channel : channels) {
    ASSERT_TRUE(client.await(EventKind::kChannelOpen, channel->key, &r)) << "channel " << channel->key;
    ASSERT_TRUE(channel->transport->uses_shared_memory());
  }
  for (std::size_t i = 0; i < kChannels; ++i) ASSERT_TRUE(server.await(EventKind::kIncoming, 0, &r)) << i;

  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::size_t expected = kChannels - tcp::RingWatch<tcp::TcpChannelEntry>::kAlwaysAwake;
  while (server.context.dozing_rings() < expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(expected, server.context.dozing_rings()) << "idle rings beyond the always-awake ones doze";

  std::vector<std::vector<uint8_t>> sent;
  sent.reserve(kChannels);
  for (std::size_t i = 0; i < kChannels; ++i) {
    sent.emplace_back(200, static_cast<uint8_t>(i));
    Submission send{};
    send.kind = static_cast<uint8_t>(OpKind::kSend);
    send.local_address = reinterpret_cast<uintptr_t>(sent.back().data());
    send.length = 200;
    channels[i]->engine.submit(&send, 1);
  }
  ASSERT_TRUE(server.await_messages(kChannels)) << server.messages().size() << " of " << kChannels << " arrived";
  std::vector<std::vector<uint8_t>> got = server.messages();
  std::sort(got.begin(), got.end());
  EXPECT_EQ(sent, got) << "every channel's message, whole";
  for (tcp::TcpChannelEntry* channel : channels) client.context.destroy_channel(channel);
  server.context.close_listener(listener);
}

}  // namespace
}  // namespace jrdma::test
