// A TCP context and its loop thread, as Java drives one, for the context tests
// (tcp_context_test.cc, shm_context_test.cc): records are kept for the test to wait on, and every
// message is released at once (its bytes copied first).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "transports/stream/tcp_context.h"
#include "wire/handshake.h"
#include "wire/message_header.h"

namespace jrdma::test {

// A context and its loop thread; records are kept for the test to wait on, and every message is
// released at once (its bytes copied first).
class Loop {
 public:
  explicit Loop(tcp::SharedMemory shared_memory = tcp::SharedMemory::kOff, const ContextOptions& options = {},
                PollMode mode = PollMode::kEvent)
      : context(options, shared_memory), mode_(mode), thread_([this] { run(); }) {}
  ~Loop() {
    stop_ = true;
    context.wake();
    thread_.join();
  }

  // The first record of `kind` (and key, unless 0) within 10 s, taken off the list.
  bool await(EventKind kind, uint32_t key, EventRecord* out) { return await(kind, kind, key, out); }

  // The first record of either kind.
  bool await(EventKind kind, EventKind or_kind, uint32_t key, EventRecord* out) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] {
      for (auto it = records_.begin(); it != records_.end(); ++it) {
        bool wanted = it->kind == static_cast<int32_t>(kind) || it->kind == static_cast<int32_t>(or_kind);
        if (wanted && (key == 0 || static_cast<uint32_t>(it->key) == key)) {
          *out = *it;
          records_.erase(it);
          return true;
        }
      }
      return false;
    });
  }

  // An active channel: its messages are read and released like an accepted one's.
  void track(tcp::TcpChannelEntry* channel) {
    std::lock_guard<std::mutex> lock(mutex_);
    channels_[channel->key] = channel;
  }

  // Waits (10 s at most) until `count` messages were copied; false if they were not.
  bool await_messages(std::size_t count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return messages_.size() >= count; });
  }

  // Answers every admission request from now on, on the loop thread as Java's policy does:
  // `accept` says yes or no (refusals carry code 1).
  void decide_admissions(std::function<bool()> accept) {
    std::lock_guard<std::mutex> lock(mutex_);
    admission_ = std::move(accept);
  }

  std::vector<std::vector<uint8_t>> messages() {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
  }

  tcp::TcpContext context;

 private:
  void run() {
    EventRecord batch[64];
    while (!stop_) {
      int n = context.wait_events(batch, 64, 50, mode_);
      std::lock_guard<std::mutex> lock(mutex_);
      for (int i = 0; i < n; ++i) {
        const EventRecord& r = batch[i];
        if (r.kind == static_cast<int32_t>(EventKind::kIncoming)) {
          channels_[static_cast<uint32_t>(r.key)] =
              reinterpret_cast<tcp::TcpChannelEntry*>(static_cast<uintptr_t>(r.c));
        }
        if (r.kind == static_cast<int32_t>(EventKind::kMessage)) {
          tcp::TcpChannelEntry* channel = channels_.at(static_cast<uint32_t>(r.key));
          const uint8_t* at = channel->memory.data() + static_cast<std::size_t>(r.a) * channel->engine.options().eager +
                              wire::kHeaderSize;
          messages_.emplace_back(at, at + r.b);
          Submission release{};
          release.kind = static_cast<uint8_t>(OpKind::kReleaseReceive);
          release.receive_slot = static_cast<uint32_t>(r.a);
          channel->engine.submit(&release, 1);
        }
        if (r.kind == static_cast<int32_t>(EventKind::kAdmissionRequest) && admission_) {
          context.decide(r.c, admission_(), 1, "refused by the test");
        }
        records_.push_back(r);
      }
      if (n > 0) changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<EventRecord> records_;
  std::vector<std::vector<uint8_t>> messages_;
  std::map<uint32_t, tcp::TcpChannelEntry*> channels_;  // passive channels by key
  std::function<bool()> admission_;
  std::atomic<bool> stop_{false};
  const PollMode mode_;
  std::thread thread_;
};

inline sockaddr_storage loopback(uint16_t port) {
  sockaddr_storage storage{};
  auto* address = reinterpret_cast<sockaddr_in*>(&storage);
  address->sin_family = AF_INET;
  address->sin_port = htons(port);
  address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return storage;
}

inline EngineOptions options(uint32_t eager = 1024) {
  EngineOptions o;
  o.depth = 16;
  o.eager = eager;
  return o;
}

inline tcp::TcpListener* listen_on_any_port(Loop& server, const EngineOptions& o, int backlog = 16,
                                            uint32_t max_pending = 64) {
  sockaddr_storage any = loopback(0);
  return server.context.listen(reinterpret_cast<sockaddr*>(&any), sizeof(sockaddr_in), o, backlog, max_pending);
}

// An open channel between two loops: the client's end and the server's (null members if it failed).
struct OpenPair {
  tcp::TcpListener* listener = nullptr;
  tcp::TcpChannelEntry* client = nullptr;
  tcp::TcpChannelEntry* server = nullptr;
  uint32_t server_key = 0;
};

// Listens on a free port, connects and waits until both ends are open; `failed` says where not.
inline OpenPair open_pair(Loop& server, Loop& client, const char** failed) {
  OpenPair pair;
  pair.listener = listen_on_any_port(server, options());
  pair.client = client.context.create_channel(options());
  client.track(pair.client);
  client.context.connect(pair.client, loopback(pair.listener->port), 5000);
  EventRecord r;
  *failed = "the client never opened";
  if (!client.await(EventKind::kChannelOpen, pair.client->key, &r)) return pair;
  *failed = "the server never accepted";
  if (!server.await(EventKind::kIncoming, 0, &r)) return pair;
  pair.server_key = static_cast<uint32_t>(r.key);
  pair.server = reinterpret_cast<tcp::TcpChannelEntry*>(static_cast<uintptr_t>(r.c));
  *failed = "the server never opened";
  if (!server.await(EventKind::kChannelOpen, pair.server_key, &r)) return pair;
  *failed = nullptr;
  return pair;
}

}  // namespace jrdma::test
