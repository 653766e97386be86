// The shared receive queue (transports/verbs/shared_receive_queue.h) on the device, inside the
// test-rxe VM: messages copied into the right channel's ring in order, a burst that outruns the
// queue waits at the sender (receiver not ready) and loses nothing while the queue grows, a peer
// beyond its credits finds no ring slot, and an idle channel registers no receive ring.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "raw_peer.h"
#include "transports/verbs/verbs_context.h"

using namespace raw_peer;  // NOLINT: the peers of these tests

namespace {

using jrdma::EventKind;
using jrdma::EventRecord;

// rxe's count of RNR NAKs its responders sent (hw_counters): evidence the queue really ran dry.
long rnr_naks_sent(const std::string& device) {
  std::ifstream in("/sys/class/infiniband/" + device + "/ports/1/hw_counters/send_rnr_err");
  long value = -1;
  in >> value;
  return value;
}

// A context's loop on a thread of its own, keeping every record.
struct LoopThread {
  explicit LoopThread(jrdma::VerbsContext& c) : context(c), thread([this] { run(); }) {}
  ~LoopThread() {
    stop = true;
    context.wake();
    thread.join();
  }
  void run() {
    EventRecord batch[64];
    while (!stop) {
      int n = context.wait_events(batch, 64, 100, jrdma::PollMode::kEvent);
      std::lock_guard<std::mutex> lock(mutex);
      records.insert(records.end(), batch, batch + n);
    }
  }
  int count(EventKind kind, int32_t a = -1) {
    std::lock_guard<std::mutex> lock(mutex);
    int n = 0;
    for (const EventRecord& r : records) n += r.kind == static_cast<int32_t>(kind) && (a < 0 || r.a == a);
    return n;
  }
  // Waits (20 s at most) until `condition` holds.
  template <typename Condition>
  bool await(Condition condition) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!condition()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }
  jrdma::VerbsContext& context;
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::vector<EventRecord> records;
  std::thread thread;
};

// A server context and a client context on rxe0 with one channel between them, open on both sides;
// the client's loop runs on its own thread, the server's only when the test runs it.
struct ConnectedPair {
  ConnectedPair(const jrdma::ContextOptions& server_options, int port)
      : server(server_options), client(rxe0()), client_loop(client) {
    sockaddr_in bind = address(kServerIp, port);
    listener = server.listen(reinterpret_cast<sockaddr*>(&bind), options, 8);
    listened_buffers = server.shared_receive_buffers();
    out = client.create_channel(options);
    sockaddr_storage remote{};
    std::memcpy(&remote, &bind, sizeof bind);
    client.connect(out, remote, nullptr, 5000);
    run_loop(server, [&](const EventRecord& r) {
      if (r.kind == static_cast<int32_t>(EventKind::kIncoming)) {
        in = reinterpret_cast<jrdma::VerbsChannelEntry*>(static_cast<uintptr_t>(r.c));
      }
      return r.kind == static_cast<int32_t>(EventKind::kChannelOpen);
    });
    open = in != nullptr && client_loop.await([&] { return client_loop.count(EventKind::kChannelOpen) == 1; });
  }
  ~ConnectedPair() {
    client.destroy_channel(out);
    if (in != nullptr) server.destroy_channel(in);
    server.close_listener(listener);
    EventRecord records[8];
    server.wait_events(records, 8, 0, jrdma::PollMode::kEvent);  // runs the queued destroy and close
  }
  // The bytes of a received message's payload, in its ring slot.
  const uint8_t* payload(const EventRecord& message) const {
    return in->memory().base + static_cast<std::size_t>(message.a) * options.engine.eager + jrdma::wire::kHeaderSize;
  }
  // Submits a SEND of [data, +length) on the client's channel.
  void send(const uint8_t* data, uint32_t length, uint32_t lkey, uint64_t seq) {
    jrdma::Submission s{};
    s.kind = static_cast<uint8_t>(jrdma::OpKind::kSend);
    s.local_address = reinterpret_cast<uintptr_t>(data);
    s.length = length;
    s.lkey = lkey;
    s.seq = seq;
    out->engine.submit(&s, 1);
  }

  jrdma::ChannelOptions options;  // depth 128, eager 4096
  jrdma::VerbsContext server;
  jrdma::VerbsContext client;
  LoopThread client_loop;
  jrdma::VerbsListener* listener = nullptr;
  uint32_t listened_buffers = 0;  // the server's shared buffers once it listened
  jrdma::VerbsChannelEntry* out = nullptr;
  jrdma::VerbsChannelEntry* in = nullptr;
  bool open = false;
};

}  // namespace

TEST(SharedReceiveDevice, ABurstBeyondTheQueueWaitsAtTheSenderLosesNothingAndTheQueueGrows) {
  jrdma::ContextOptions small = rxe0();
  small.shared_receive_buffers = 2;
  ConnectedPair pair(small, 21030);  // 128 credits: enough for the whole burst
  ASSERT_TRUE(pair.open);
  EXPECT_EQ(2u, pair.listened_buffers) << "the queue is created with the listener";
  jrdma::VerbsContext& server = pair.server;
  jrdma::VerbsContext& client = pair.client;
  LoopThread& client_loop = pair.client_loop;

  // 64 messages while the server's loop does not run: two find a buffer, the third a device that
  // answers "not ready", and the sender's device waits and retries.
  constexpr int kMessages = 64;
  constexpr uint32_t kLength = 100;
  std::vector<uint8_t> payload(kMessages * kLength);
  for (int i = 0; i < kMessages; ++i) std::memset(&payload[i * kLength], i + 1, kLength);
  auto region = client.register_memory(payload.data(), payload.size(), IBV_ACCESS_LOCAL_WRITE);
  long naks_before = rnr_naks_sent("rxe0");
  ASSERT_GE(naks_before, 0) << "rxe's hw_counters/send_rnr_err is readable";
  for (int i = 0; i < kMessages; ++i) pair.send(&payload[i * kLength], kLength, region->lkey(), i);
  ASSERT_TRUE(client_loop.await([&] { return rnr_naks_sent("rxe0") > naks_before; }))
      << "the queue of 2 ran dry and the server's device said so";

  int delivered = 0;
  run_loop(server, [&](const EventRecord& r) {
    if (r.kind != static_cast<int32_t>(EventKind::kMessage)) return false;
    EXPECT_EQ(delivered, r.c) << "in order";
    EXPECT_EQ(static_cast<int32_t>(kLength), r.b);
    const uint8_t* bytes = pair.payload(r);
    EXPECT_EQ(delivered + 1, bytes[0]) << "message " << delivered << " in its ring slot";
    EXPECT_EQ(delivered + 1, bytes[kLength - 1]);
    jrdma::Submission release{};
    release.kind = static_cast<uint8_t>(jrdma::OpKind::kReleaseReceive);
    release.receive_slot = static_cast<uint32_t>(r.a);
    pair.in->engine.submit(&release, 1);
    return ++delivered == kMessages;
  });
  EXPECT_EQ(kMessages, delivered);
  EXPECT_TRUE(client_loop.await([&] { return client_loop.count(EventKind::kOpDone, 0) == kMessages; }))
      << "every send completed successfully";
  // The low-water event waits on the device's async fd, which the loop reads between its CQ polls.
  run_loop(
      server, [](const EventRecord&) { return false; }, [&] { return server.shared_receive_buffers() > 2; });
  uint32_t grown = server.shared_receive_buffers();
  EXPECT_GE(grown, 4u) << "the device's low-water event made the queue grow";
  EXPECT_EQ(0u, grown & (grown - 1)) << "by doubling: " << grown;
  EXPECT_LE(grown, 128u) << "no more than the burst needed twice over";
}

TEST(SharedReceiveDevice, APeerBeyondItsCreditsFindsNoRingSlotAndTheChannelEnds) {
  RawChannel raw(21031, 4);  // the server grants 4 credits
  ASSERT_TRUE(raw.ok);
  EXPECT_GT(raw.server.shared_receive_buffers(), 0u) << "the channel receives through the shared queue";
  // Five data messages, none of whose slots the application releases: the fifth has no slot.
  for (uint64_t id = 0; id < 5; ++id) {
    jrdma::wire::encode_header({jrdma::wire::MessageType::kData, 0, 0, 8, id}, raw.message);
    raw.send_raw(jrdma::wire::kHeaderSize + 8);
    ASSERT_EQ(IBV_WC_SUCCESS, raw.await_send()) << "message " << id << " reached the server's device";
  }
  int messages = 0;
  run_loop(raw.server, [&](const EventRecord& r) {
    messages += r.kind == static_cast<int32_t>(EventKind::kMessage);
    if (r.kind != static_cast<int32_t>(EventKind::kChannelClosed)) return false;
    EXPECT_EQ(static_cast<int32_t>(jrdma::ClosedCause::kProtocolError), r.a);
    EXPECT_EQ(static_cast<int32_t>(jrdma::ProtocolViolation::kUnexpectedReceive), r.b);
    return true;
  });
  EXPECT_EQ(4, messages) << "the four within the credits were delivered";
}

TEST(SharedReceiveDevice, WithoutSharedBuffersEachQueuePairHasItsOwnReceiveQueue) {
  jrdma::ContextOptions own = rxe0();
  own.shared_receive_buffers = 0;
  ConnectedPair pair(own, 21032);
  ASSERT_TRUE(pair.open);
  EXPECT_EQ(0u, pair.listened_buffers);
  std::vector<uint8_t> payload(100, 42);
  auto region = pair.client.register_memory(payload.data(), payload.size(), IBV_ACCESS_LOCAL_WRITE);
  pair.send(payload.data(), 100, region->lkey(), 0);
  run_loop(pair.server, [&](const EventRecord& r) {
    if (r.kind != static_cast<int32_t>(EventKind::kMessage)) return false;
    EXPECT_EQ(42, pair.payload(r)[0]);
    return true;
  });
  EXPECT_EQ(0u, pair.server.shared_receive_buffers());
}
