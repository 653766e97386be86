// Allocation failure on the active side (inside the test-rxe VM, under ASan): the k-th allocation
// of the client's thread — its loop and the application's calls: create, connect, three sends,
// graceful close, destroy — fails, for every k until a cycle makes fewer allocations, against a
// server context on its own thread that fails nothing. Every connect must be answered, every send
// reported once or failed by the close, every channel closed; a last cycle with nothing failing
// opens and reports its sends.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test/device/allocation_failure.h"
#include "transports/verbs/verbs_context.h"
#include "wire/handshake.h"

using namespace jrdma::test;

namespace {

constexpr int kActivePort = 21021;

// A jrdma server on rxe0 with nothing failing, its loop on a thread of its own: it releases every
// message it receives and destroys every channel that closes.
class PeerServer {
 public:
  PeerServer() : context_(device("rxe0")) {
    listener_ = listen_on(context_, kActivePort);
    loop_ = std::thread([this] { run(); });
  }

  ~PeerServer() {
    stop_ = true;
    loop_.join();
    for (auto& [key, channel] : channels_) context_.destroy_channel(channel);
    context_.close_listener(listener_);
    jrdma::EventRecord records[64];
    context_.wait_events(records, 64, 0, jrdma::PollMode::kEvent);  // runs the queued destroys and the close
  }

  std::atomic<long> messages{0};

 private:
  void run() {
    jrdma::EventRecord records[64];
    while (!stop_) {
      int n = context_.wait_events(records, 64, 20, jrdma::PollMode::kEvent);
      for (int i = 0; i < n; ++i) {
        const jrdma::EventRecord& r = records[i];
        auto key = static_cast<uint32_t>(r.key);
        switch (static_cast<jrdma::EventKind>(r.kind)) {
          case jrdma::EventKind::kIncoming:
            channels_[key] = reinterpret_cast<jrdma::VerbsChannelEntry*>(static_cast<uintptr_t>(r.c));
            break;
          case jrdma::EventKind::kMessage: {
            ++messages;
            jrdma::Submission release{};
            release.kind = static_cast<uint8_t>(jrdma::OpKind::kReleaseReceive);
            release.receive_slot = static_cast<uint32_t>(r.a);
            channels_.at(key)->engine.submit(&release, 1);
            break;
          }
          case jrdma::EventKind::kChannelClosed:
            if (channels_.count(key) != 0) {
              context_.destroy_channel(channels_[key]);
              channels_.erase(key);
            }
            break;
          default:
            break;
        }
      }
    }
  }

  jrdma::VerbsContext context_;
  jrdma::VerbsListener* listener_ = nullptr;
  std::map<uint32_t, jrdma::VerbsChannelEntry*> channels_;  // loop thread
  std::atomic<bool> stop_{false};
  std::thread loop_;
};

// The client's context on rxe1, driven by the test thread as Java's loop and application threads
// would drive it; every call runs with the armed countdown.
class ActiveClient {
 public:
  ActiveClient() : context_(device("rxe1")), buffer_(4096, 0x5a) {
    region_ = context_.register_memory(buffer_.data(), buffer_.size(), IBV_ACCESS_LOCAL_WRITE);
  }

  void arm(long k) { countdown_ = k; }
  bool armed_but_not_reached() const { return countdown_ >= 0; }

  // Runs `call` with the countdown; true if it returned, false if it threw (what it threw is kept).
  template <typename Call>
  bool armed(Call call) {
    fail_countdown = countdown_;
    bool returned = true;
    try {
      call();
    } catch (const std::bad_alloc&) {
      returned = false;
      thrown = "std::bad_alloc";
    } catch (const jrdma::RdmaError& e) {
      returned = false;
      thrown = e.what();
    }
    countdown_ = fail_countdown;
    fail_countdown = -1;
    return returned;
  }

  // One turn of the loop; an exception leaving wait_events is a failure.
  void turn(int timeout_ms) {
    int n = 0;
    if (!armed([&] { n = context_.wait_events(records_, 64, timeout_ms, jrdma::PollMode::kEvent); })) {
      ADD_FAILURE() << "wait_events threw " << thrown;
      n = 0;
    }
    for (int i = 0; i < n; ++i) see(records_[i]);
  }

  template <typename Done>
  bool turn_until(Done done, int seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      turn(20);
    }
    return true;
  }

  // A channel's life as Java leads it: create, connect, three sends, graceful close, destroy.
  // A call that throws is what Java turns into an exception for the caller (create, connect) or
  // into aborting the channel (a submission).
  void cycle(long k) {
    arm(k);
    open = closed = false;
    reported.assign(3, 0);
    thrown.clear();
    jrdma::ChannelOptions options = small_channels();
    channel_ = nullptr;
    if (!armed([&] { channel_ = context_.create_channel(options); })) return;  // the application sees it
    key_ = channel_->key;
    sockaddr_storage remote{};
    auto* to = reinterpret_cast<sockaddr_in*>(&remote);
    to->sin_family = AF_INET;
    to->sin_port = htons(kActivePort);
    inet_pton(AF_INET, kServerIp, &to->sin_addr);
    sockaddr_storage local{};
    auto* from = reinterpret_cast<sockaddr_in*>(&local);
    from->sin_family = AF_INET;
    inet_pton(AF_INET, kClientIp, &from->sin_addr);
    if (armed([&] { context_.connect(channel_, remote, &local, 5000); })) {
      EXPECT_TRUE(turn_until([&] { return open || closed; }, 30))
          << "allocation " << k << ": the connect was never answered";
    } else {
      armed([&] { channel_->engine.abort(jrdma::ClosedCause::kLocal); });
    }
    if (open && !closed) {
      for (uint64_t seq = 0; seq < 3; ++seq) {
        jrdma::Submission send{};
        send.kind = static_cast<uint8_t>(jrdma::OpKind::kSend);
        send.seq = seq;
        send.local_address = reinterpret_cast<uintptr_t>(buffer_.data());
        send.length = 100;
        send.lkey = region_->lkey();
        if (!armed([&] { channel_->engine.submit(&send, 1); })) {
          armed([&] { channel_->engine.abort(jrdma::ClosedCause::kLocal); });  // Java fails the channel
          break;
        }
      }
      EXPECT_TRUE(turn_until([&] { return closed || (reported[0] && reported[1] && reported[2]); }, 30))
          << "allocation " << k << ": sends neither reported nor failed by a close";
      armed([&] { channel_->engine.close(); });
    } else if (!closed) {
      armed([&] { channel_->engine.close(); });
    }
    EXPECT_TRUE(turn_until([&] { return closed; }, 30))
        << "allocation " << k << ": the channel never reported its close";
    for (uint64_t seq = 0; seq < 3; ++seq)
      EXPECT_LE(reported[seq], 1) << "allocation " << k << ": send " << seq << " reported twice";
    armed([&] { context_.destroy_channel(channel_); });
    turn(0);  // runs the queued destroy
  }

  bool open = false;
  bool closed = false;
  std::vector<int> reported;
  std::string thrown;

 private:
  void see(const jrdma::EventRecord& r) {
    if (static_cast<uint32_t>(r.key) != key_) return;
    switch (static_cast<jrdma::EventKind>(r.kind)) {
      case jrdma::EventKind::kChannelOpen:
        open = true;
        break;
      case jrdma::EventKind::kChannelClosed:
        closed = true;
        break;
      case jrdma::EventKind::kOpDone:
        if (r.c >= 0 && r.c < 3) ++reported[static_cast<std::size_t>(r.c)];
        break;
      case jrdma::EventKind::kOpsUnposted:
        for (int64_t seq = r.c; seq >= 0 && seq < 3; ++seq) ++reported[static_cast<std::size_t>(seq)];
        break;
      default:
        break;
    }
  }

  jrdma::VerbsContext context_;
  std::vector<uint8_t> buffer_;
  std::unique_ptr<jrdma::verbs::MemoryRegion> region_;
  jrdma::VerbsChannelEntry* channel_ = nullptr;
  uint32_t key_ = 0;
  jrdma::EventRecord records_[64];
  long countdown_ = -1;
};

}  // namespace

TEST(AllocationFailureDevice, AConnectingChannelAndItsSendsSurviveAFailedAllocationAnywhere) {
  with_watchdog(900, [] {
    PeerServer server;
    ActiveClient client;
    client.cycle(-1);
    ASSERT_TRUE(client.open) << "a cycle with nothing failing opens";
    ASSERT_EQ(std::vector<int>({1, 1, 1}), client.reported) << "and reports its sends";
    long injected = 0;
    for (long k = 0; k < 5000; ++k) {
      step_allocation = k;
      client.cycle(k);
      if (client.armed_but_not_reached()) break;
      ++injected;
      if (::testing::Test::HasFailure()) break;
    }
    EXPECT_GT(injected, 10);
    std::printf("allocation failures injected on the active side: %ld\n", injected);
    client.cycle(-1);
    EXPECT_TRUE(client.open) << "after every failure, a channel opens";
    EXPECT_EQ(std::vector<int>({1, 1, 1}), client.reported) << "and reports its sends";
    EXPECT_GE(server.messages.load(), 6);
    step = "close the contexts";
  });
}
