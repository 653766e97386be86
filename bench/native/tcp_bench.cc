// jrdma_tcp_bench: the TCP transport's ping-pong latency on this host's loopback, next to the same
// ping-pong over plain sockets, both driven by one thread that busy-polls both ends (no thread
// hand-offs in either): the cost of jrdma's engine and frames over TCP, without a JVM.
//   jrdma_tcp_bench [--sizes 64,4096,65536,1048576] [--iters N]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "transports/stream/tcp_context.h"
#include "wire/message_header.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace jrdma;

double now_us() { return std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count(); }

struct Stats {
  double p50, p99;
};

Stats stats(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples[samples.size() * 99 / 100]};
}

// One side of the jrdma pair: its context, its channel, a buffer to send from.
struct End {
  tcp::TcpContext context{ContextOptions{}};
  tcp::TcpChannelEntry* channel = nullptr;
  std::vector<uint8_t> out;
  std::vector<uint8_t> large;  // a rendezvous message's destination
  EventRecord records[64];
  uint64_t done = 0;  // sends reported

  // Polls once; returns how many messages arrived (each released, or its buffer given).
  int poll() {
    int arrived = 0;
    int n = context.wait_events(records, 64, 0);
    for (int i = 0; i < n; ++i) {
      const EventRecord& r = records[i];
      switch (static_cast<EventKind>(r.kind)) {
        case EventKind::kIncoming:
          channel = reinterpret_cast<tcp::TcpChannelEntry*>(static_cast<uintptr_t>(r.c));
          break;
        case EventKind::kMessage: {
          Submission release{};
          release.kind = static_cast<uint8_t>(OpKind::kReleaseReceive);
          release.receive_slot = static_cast<uint32_t>(r.a);
          channel->engine.submit(&release, 1);
          ++arrived;
          break;
        }
        case EventKind::kTransferNeedsBuffer: {
          large.resize(static_cast<std::size_t>(r.d));
          Submission give{};
          give.kind = static_cast<uint8_t>(OpKind::kTransferBuffer);
          give.compare_add = static_cast<uint64_t>(r.c);
          give.local_address = reinterpret_cast<uintptr_t>(large.data());
          give.length = static_cast<uint32_t>(large.size());
          channel->engine.submit(&give, 1);
          break;
        }
        case EventKind::kLargeMessage:
          ++arrived;
          break;
        case EventKind::kOpDone:
          ++done;
          break;
        case EventKind::kChannelClosed:
          throw RdmaError(ErrorKind::kNative, "the benchmark's channel closed (cause " + std::to_string(r.a) + ")");
        default:
          break;
      }
    }
    return arrived;
  }

  void send(uint32_t length) {
    Submission s{};
    s.kind = static_cast<uint8_t>(OpKind::kSend);
    s.local_address = reinterpret_cast<uintptr_t>(out.data());
    s.length = length;
    channel->engine.submit(&s, 1);
  }
};

Stats jrdma_pingpong(End& a, End& b, uint32_t size, int iters) {
  a.out.assign(size, 1);
  b.out.assign(size, 2);
  std::vector<double> samples;
  for (int i = -iters / 10; i < iters; ++i) {  // the first tenth warms up
    double start = now_us();
    a.send(size);
    while (b.poll() == 0) a.poll();
    b.send(size);
    while (a.poll() == 0) b.poll();
    if (i >= 0) samples.push_back(now_us() - start);
  }
  return stats(samples);
}

// One way, `window` sends in flight: MiB/s until the receiver has them all.
double jrdma_stream(End& a, End& b, uint32_t size, int count, int window) {
  a.out.assign(size, 3);
  uint64_t start_done = a.done;
  int sent = 0, received = 0;
  double start = now_us();
  while (received < count) {
    while (sent < count && static_cast<uint64_t>(sent) - (a.done - start_done) < static_cast<uint64_t>(window)) {
      a.send(size);
      ++sent;
    }
    received += b.poll();
    a.poll();
  }
  return static_cast<double>(size) * count / (now_us() - start);  // bytes per us = MB/s
}

// Both ends of a plain loopback connection, TCP_NODELAY.
std::pair<int, int> plain_sockets() {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::listen(listener, 1);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  int a = ::socket(AF_INET, SOCK_STREAM, 0);
  ::connect(a, reinterpret_cast<sockaddr*>(&address), sizeof address);
  int b = ::accept(listener, nullptr, nullptr);
  ::close(listener);
  int one = 1;
  ::setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return {a, b};
}

// The same stream over plain sockets: count x size bytes one way.
double socket_stream(uint32_t size, int count) {
  auto [a, b] = plain_sockets();
  std::vector<uint8_t> out(size, 3), in(1 << 20);
  uint64_t total = static_cast<uint64_t>(size) * count, sent = 0, got = 0;
  double start = now_us();
  while (got < total) {
    if (sent < total) {
      std::size_t chunk = std::min<uint64_t>(size - sent % size, total - sent);
      ssize_t n = ::send(a, out.data() + sent % size, chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<uint64_t>(n);
    }
    ssize_t n = ::recv(b, in.data(), in.size(), MSG_DONTWAIT);
    if (n > 0) got += static_cast<uint64_t>(n);
  }
  double rate = static_cast<double>(total) / (now_us() - start);
  ::close(a);
  ::close(b);
  return rate;
}

// The same exchange over two plain connected non-blocking sockets.
Stats socket_pingpong(uint32_t size, int iters) {
  auto [a, b] = plain_sockets();
  std::vector<uint8_t> out(size, 1), in(size);
  auto transfer = [&](int from, int to) {
    std::size_t sent = 0, got = 0;
    while (got < size) {
      if (sent < size) {
        ssize_t n = ::send(from, out.data() + sent, size - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) sent += static_cast<std::size_t>(n);
      }
      ssize_t n = ::recv(to, in.data() + got, size - got, MSG_DONTWAIT);
      if (n > 0) got += static_cast<std::size_t>(n);
    }
  };
  std::vector<double> samples;
  for (int i = -iters / 10; i < iters; ++i) {
    double start = now_us();
    transfer(a, b);
    transfer(b, a);
    if (i >= 0) samples.push_back(now_us() - start);
  }
  ::close(a);
  ::close(b);
  return stats(samples);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint32_t> sizes{64, 4096, 65536, 1u << 20};
  int iters = 10000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string option = argv[i];
    if (option == "--iters") {
      iters = std::max(10, std::stoi(argv[i + 1]));
    } else if (option == "--sizes") {
      sizes.clear();
      std::string list = argv[i + 1];
      for (std::size_t at = 0; at <= list.size();) {
        std::size_t comma = list.find(',', at);
        sizes.push_back(static_cast<uint32_t>(std::stoul(list.substr(at, comma - at))));
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "unknown option %s\n", option.c_str());
      return 2;
    }
  }
  try {
    EngineOptions options;
    options.depth = 128;
    options.eager = 64 * 1024 + static_cast<uint32_t>(wire::kHeaderSize);  // as the verbs benchmark
    End server, client;
    sockaddr_storage any{};
    auto* in = reinterpret_cast<sockaddr_in*>(&any);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    tcp::TcpListener* listener =
        server.context.listen(reinterpret_cast<sockaddr*>(&any), sizeof(sockaddr_in), options, 4);
    in->sin_port = htons(listener->port);
    client.channel = client.context.create_channel(options);
    client.context.connect(client.channel, any, 5000);
    while (server.channel == nullptr || client.channel->engine.state() != ChannelEngine::State::kOpen) {
      server.poll();
      client.poll();
    }
    std::printf("round trip on loopback, one thread polling both ends; %d iterations\n", iters);
    std::printf("%10s %14s %14s %14s %14s\n", "bytes", "jrdma p50[us]", "jrdma p99[us]", "socket p50", "socket p99");
    for (uint32_t size : sizes) {
      Stats ours = jrdma_pingpong(client, server, size, iters);
      Stats plain = socket_pingpong(size, iters);
      std::printf("%10u %14.2f %14.2f %14.2f %14.2f\n", size, ours.p50, ours.p99, plain.p50, plain.p99);
    }
    std::printf("\none way, 64 sends in flight, %d messages per size\n", iters);
    std::printf("%10s %14s %14s\n", "bytes", "jrdma MB/s", "socket MB/s");
    for (uint32_t size : sizes) {
      int count = std::max(100, static_cast<int>(std::min<uint64_t>(iters, (512ull << 20) / size)));
      double ours = jrdma_stream(client, server, size, count, 64);
      double plain = socket_stream(size, count);
      std::printf("%10u %14.1f %14.1f\n", size, ours, plain);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jrdma_tcp_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
