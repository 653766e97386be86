// Two channel engines joined by TcpChannels over a real loopback TCP connection, each with its own
// memory table (its "context"), and the application's part: messages checked and released,
// rendezvous buffers given, operations' reports counted by sequence number.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "protocol/channel_engine.h"
#include "test/protocol/engine_pair.h"  // RecordingSink
#include "transports/stream/tcp_channel.h"

namespace jrdma::test {

// Both ends of one loopback TCP connection.
inline std::pair<int, int> connected_sockets() {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener, 1) != 0 || ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("loopback listener");
  }
  int client = ::socket(AF_INET, SOCK_STREAM, 0);
  if (::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
    throw std::runtime_error("connect");
  int server = ::accept(listener, nullptr, nullptr);
  ::close(listener);
  return {client, server};
}

// A message's bytes: its index, then a pattern of it.
inline void fill_message(std::vector<uint8_t>& payload, uint64_t index) {
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(index * 31 + i);
  std::memcpy(payload.data(), &index, sizeof index);
}

struct TcpSide {
  TcpSide(uint32_t key, const EngineOptions& options, int fd)
      : memory(ChannelMemoryLayout::of(options.depth, options.eager).size),
        transport(fd, memory.data(), options.eager, table),
        engine(key, options, ChannelMemory{memory.data(), memory.size()}, sink),
        exposed(4096, 0) {
    exposed_key = table.add(reinterpret_cast<uintptr_t>(exposed.data()), exposed.size(),
                            tcp::kRemoteWrite | tcp::kRemoteRead | tcp::kRemoteAtomic);
  }

  tcp::MemoryTable table;  // before the transport: it outlives it
  std::vector<uint8_t> memory;
  RecordingSink sink;
  tcp::TcpChannel transport;
  ChannelEngine engine;
  std::vector<uint8_t> exposed;  // the peer writes, reads and adds to it
  uint32_t exposed_key = 0;

  uint64_t next_seq = 0;
  std::map<uint64_t, std::vector<uint8_t>> payloads;   // by seq: the "registered buffer" of each op
  std::map<uint64_t, int> reports;                     // seq -> how many reports
  std::map<uint64_t, int> statuses;                    // seq -> last status
  std::map<uint64_t, int64_t> results;                 // seq -> atomic result
  std::map<uint64_t, std::vector<uint8_t>> transfers;  // rendezvous destinations by transfer id
  uint64_t messages_sent = 0;
  uint64_t messages_received = 0;
  uint64_t large_received = 0;       // by rendezvous: READs of the sender's memory
  std::set<uint32_t> receive_slots;  // the receive buffers messages arrived in
  std::vector<uint32_t> immediates;
  bool refuse_buffers = false;  // as Java when it cannot allocate a large message's buffer
  bool open = false;
  bool closed = false;
  int closed_cause = 0;
  int closed_code = 0;
  std::string violation;

  // Java's side of an operation: a Submission and the buffer it names.
  Submission make(OpKind kind, uint32_t length) {
    Submission s{};
    s.kind = static_cast<uint8_t>(kind);
    s.seq = next_seq++;
    std::vector<uint8_t>& buffer = payloads[s.seq];
    buffer.assign(std::max<uint32_t>(length, 8), 0);
    if (kind == OpKind::kSend) fill_message(buffer, messages_sent++);
    s.local_address = reinterpret_cast<uintptr_t>(buffer.data());
    s.length = length;
    return s;
  }
};

class TcpPair {
 public:
  explicit TcpPair(EngineOptions options = {}) : TcpPair(options, connected_sockets()) {}

  void submit(TcpSide& s, Submission sub) { s.engine.submit(&sub, 1); }

  // Runs both "event loops" and "applications" until done() or 20 s; false on timeout.
  template <typename Done>
  bool run_until(Done done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      for (TcpSide* s : {&a, &b}) {
        s->transport.process(s->engine);
        s->engine.flush();
        s->engine.tick(std::chrono::steady_clock::now());
        handle(*s);
      }
      pollfd fds[2] = {{a.transport.fd(), POLLIN, 0}, {b.transport.fd(), POLLIN, 0}};
      if (a.transport.wants_write()) fds[0].events |= POLLOUT;
      if (b.transport.wants_write()) fds[1].events |= POLLOUT;
      ::poll(fds, 2, 1);
      // What epoll's edge tells the context's loop: the socket has bytes (or its end) to read.
      if (fds[0].revents != 0) a.transport.socket_readable();
      if (fds[1].revents != 0) b.transport.socket_readable();
    }
    return true;
  }

  TcpSide a;
  TcpSide b;

 private:
  TcpPair(EngineOptions options, std::pair<int, int> fds) : a(1, options, fds.first), b(2, options, fds.second) {
    a.engine.attach(&a.transport);
    b.engine.attach(&b.transport);
    a.engine.set_peer(b.engine.local_handshake());
    b.engine.set_peer(a.engine.local_handshake());
    b.engine.open();
    a.engine.open();
  }

  void handle(TcpSide& s) {
    auto fail = [&](const std::string& what) {
      if (s.violation.empty()) s.violation = what;
    };
    auto check = [&](const uint8_t* payload, uint32_t length) {
      uint64_t index;
      std::memcpy(&index, payload, 8);
      if (index != s.messages_received)
        fail("message " + std::to_string(index) + " arrived, expected " + std::to_string(s.messages_received));
      for (uint32_t i = 8; i < length; ++i) {
        if (payload[i] != static_cast<uint8_t>(index * 31 + i)) {
          fail("message " + std::to_string(index) + " has a wrong byte at " + std::to_string(i));
          break;
        }
      }
      ++s.messages_received;
    };
    std::vector<EventRecord> records;
    records.swap(s.sink.records);
    for (const EventRecord& r : records) {
      switch (static_cast<EventKind>(r.kind)) {
        case EventKind::kChannelOpen:
          s.open = true;
          break;
        case EventKind::kOpDone:
          // Reports come in submission order: none for an operation older than one already reported.
          if (!s.reports.empty() && static_cast<uint64_t>(r.c) < s.reports.rbegin()->first) {
            fail("operation " + std::to_string(r.c) + " reported after a later one");
          }
          ++s.reports[static_cast<uint64_t>(r.c)];
          s.statuses[static_cast<uint64_t>(r.c)] = r.a;
          s.results[static_cast<uint64_t>(r.c)] = r.d;
          break;
        case EventKind::kOpsUnposted:
          for (uint64_t seq = static_cast<uint64_t>(r.c); seq < s.next_seq; ++seq) ++s.reports[seq];
          break;
        case EventKind::kMessage: {
          uint32_t slot = static_cast<uint32_t>(r.a);
          s.receive_slots.insert(slot);
          check(s.memory.data() + static_cast<std::size_t>(slot) * s.engine.options().eager + wire::kHeaderSize,
                static_cast<uint32_t>(r.b));
          Submission release{};
          release.kind = static_cast<uint8_t>(OpKind::kReleaseReceive);
          release.receive_slot = slot;
          s.engine.submit(&release, 1);
          break;
        }
        case EventKind::kImmediate: {
          s.immediates.push_back(static_cast<uint32_t>(r.b));
          Submission release{};
          release.kind = static_cast<uint8_t>(OpKind::kReleaseReceive);
          release.receive_slot = static_cast<uint32_t>(r.a);
          s.engine.submit(&release, 1);
          break;
        }
        case EventKind::kTransferNeedsBuffer: {
          std::vector<uint8_t>& buffer = s.transfers[static_cast<uint64_t>(r.c)];
          buffer.assign(static_cast<std::size_t>(r.d), 0xEE);
          Submission give{};
          give.kind = static_cast<uint8_t>(OpKind::kTransferBuffer);
          give.compare_add = static_cast<uint64_t>(r.c);
          give.local_address = reinterpret_cast<uintptr_t>(buffer.data());
          give.length = static_cast<uint32_t>(buffer.size());
          if (s.refuse_buffers) {
            give.local_address = 0;
            give.length = 0;
            give.swap = 12;  // ENOMEM, the sender learns it
            s.transfers.erase(static_cast<uint64_t>(r.c));
          }
          s.engine.submit(&give, 1);
          break;
        }
        case EventKind::kLargeMessage: {
          auto it = s.transfers.find(static_cast<uint64_t>(r.c));
          if (it == s.transfers.end()) {
            fail("a large message without its buffer");
            break;
          }
          check(it->second.data(), static_cast<uint32_t>(r.b));
          s.transfers.erase(it);
          ++s.large_received;
          break;
        }
        case EventKind::kChannelClosed:
          s.closed = true;
          s.closed_cause = r.a;
          s.closed_code = r.b;
          for (uint64_t seq = 0; seq < s.next_seq; ++seq) {
            if (s.reports[seq] == 0) s.reports[seq] = 1;  // "every operation not reported yet failed"
          }
          break;
        default:
          break;
      }
    }
  }
};

}  // namespace jrdma::test
