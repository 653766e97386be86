// jrdma_native_bench: the C++ core driven directly, without a JVM, so that the cost of JNI and Java
// can be told apart from the engine's. One thread drives a server and a client context on the same
// device (busy polling both, like one perftest pair without process switches), over jrdma channels:
// the protocol engine and the verbs transport exactly as Java drives them, minus the JVM.
//   jrdma_native_bench [--device rxe0] [--ip 10.77.0.1] [--sizes 8,64,4096] [--lat-iters N] [--bw-iters N]
//                      [--window N] [--csv FILE]
#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "transports/verbs/verbs_context.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kDepth = 128;
constexpr uint32_t kEager = 64 * 1024 + 16;

struct Options {
  std::string device = "rxe0";
  std::string ip = "10.77.0.1";
  std::vector<int> sizes{8, 64, 4096, 65536, 1 << 20};
  int lat_iters = 1000;
  int bw_iters = 1000;
  int window = 64;
  int warmup = 200;  // untimed iterations per case, at most as many as timed ones (as the Java tool)
  std::vector<std::string> tests{"send_lat", "write_lat", "read_lat", "send_bw", "write_bw", "read_bw"};
  std::string csv;
};

double now_us() { return std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count(); }

// One side: a context, its channel (engine + verbs transport) and a registered data buffer.
struct Side {
  std::unique_ptr<jrdma::VerbsContext> context;
  jrdma::VerbsChannelEntry* channel = nullptr;
  std::vector<uint8_t> data;
  std::unique_ptr<jrdma::verbs::MemoryRegion> data_mr;
  // Where messages above the eager size are read to (one registered buffer for all, as perftest
  // reuses its buffer; the Java tool allocates from its pool per message).
  std::vector<uint8_t> incoming;
  std::unique_ptr<jrdma::verbs::MemoryRegion> incoming_mr;
  bool established = false;
  int completions = 0;  // operations reported done
  int messages = 0;     // messages received
  uint64_t seq = 0;
  std::vector<jrdma::Submission> releases;

  // Polls once; handles the records; releases received messages at once (one submit per poll).
  // While connected only the CQ is polled (no system call), like perftest.
  void poll() {
    jrdma::EventRecord records[64];
    int n = established ? context->poll(records, 64) : context->wait_events(records, 64, 0, jrdma::PollMode::kEvent);
    for (int i = 0; i < n; ++i) handle(records[i]);
    if (!releases.empty()) {
      channel->engine.submit(releases.data(), static_cast<int>(releases.size()));
      releases.clear();
    }
  }

  void handle(const jrdma::EventRecord& r) {
    using jrdma::EventKind;
    switch (static_cast<EventKind>(r.kind)) {
      case EventKind::kIncoming:
        channel = reinterpret_cast<jrdma::VerbsChannelEntry*>(static_cast<uintptr_t>(r.c));
        break;
      case EventKind::kChannelOpen:
        established = true;
        break;
      case EventKind::kChannelClosed:
        throw jrdma::RdmaError(jrdma::ErrorKind::kNative,
                               "channel closed: cause " + std::to_string(r.a) + " code " + std::to_string(r.b) +
                                   " detail " + std::to_string(r.c),
                               0);
      case EventKind::kOpDone:
        if (r.a != 0)
          throw jrdma::RdmaError(jrdma::ErrorKind::kNative, "work completion status " + std::to_string(r.a), 0);
        ++completions;
        break;
      case EventKind::kTransferNeedsBuffer: {
        jrdma::Submission buffer{};
        buffer.kind = static_cast<uint8_t>(jrdma::OpKind::kTransferBuffer);
        buffer.compare_add = static_cast<uint64_t>(r.c);
        buffer.local_address = reinterpret_cast<uintptr_t>(incoming.data());
        buffer.length = static_cast<uint32_t>(r.d);
        buffer.lkey = incoming_mr->lkey();
        releases.push_back(buffer);
        break;
      }
      case EventKind::kLargeMessage:
        ++messages;
        break;
      case EventKind::kMessage: {
        ++messages;
        jrdma::Submission release{};
        release.kind = static_cast<uint8_t>(jrdma::OpKind::kReleaseReceive);
        release.receive_slot = static_cast<uint32_t>(r.a);
        releases.push_back(release);
        break;
      }
      default:
        break;
    }
  }

  // One operation through the engine, as Java submits it from an application thread.
  void submit(jrdma::OpKind kind, uint32_t length, uint64_t remote = 0, uint32_t rkey = 0) {
    jrdma::Submission s{};
    s.kind = static_cast<uint8_t>(kind);
    s.local_address = reinterpret_cast<uintptr_t>(data.data());
    s.length = length;
    s.lkey = data_mr->lkey();
    s.remote_address = remote;
    s.rkey = rkey;
    s.seq = seq++;
    channel->engine.submit(&s, 1);
  }
};

struct Pair {
  Side server;
  Side client;
  jrdma::VerbsListener* listener = nullptr;

  void poll_both() {
    server.poll();
    client.poll();
  }
};

void open_pair(Pair& pair, const Options& o, int port) {
  jrdma::ContextOptions context_options;
  context_options.device_name = o.device;
  pair.server.context = std::make_unique<jrdma::VerbsContext>(context_options);
  pair.client.context = std::make_unique<jrdma::VerbsContext>(context_options);
  jrdma::ChannelOptions channel_options;
  channel_options.engine.depth = kDepth;
  channel_options.engine.eager = kEager;
  sockaddr_storage address{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
  v4->sin_family = AF_INET;
  v4->sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, o.ip.c_str(), &v4->sin_addr);
  pair.listener = pair.server.context->listen(reinterpret_cast<sockaddr*>(&address), channel_options, 8);
  pair.client.channel = pair.client.context->create_channel(channel_options);
  pair.client.context->connect(pair.client.channel, address, nullptr, 2000);
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!(pair.server.established && pair.client.established)) {
    if (Clock::now() > deadline) throw jrdma::RdmaError(jrdma::ErrorKind::kNative, "connect timed out", 0);
    pair.poll_both();
  }
  for (Side* side : {&pair.server, &pair.client}) {
    side->data.assign(static_cast<std::size_t>(std::max(o.sizes.back(), 64)), 0);
    side->data_mr =
        side->context->register_memory(side->data.data(), side->data.size(),
                                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    side->incoming.assign(side->data.size(), 0);
    side->incoming_mr =
        side->context->register_memory(side->incoming.data(), side->incoming.size(), IBV_ACCESS_LOCAL_WRITE);
  }
}

void close_pair(Pair& pair) {
  for (Side* side : {&pair.client, &pair.server}) {
    side->context->destroy_channel(side->channel);
    jrdma::EventRecord records[64];
    side->context->wait_events(records, 64, 0, jrdma::PollMode::kEvent);
    side->data_mr.reset();
    side->incoming_mr.reset();
  }
  pair.server.context->close_listener(pair.listener);
  jrdma::EventRecord records[64];
  pair.server.context->wait_events(records, 64, 0, jrdma::PollMode::kEvent);
}

void send(Side& side, int size) { side.submit(jrdma::OpKind::kSend, static_cast<uint32_t>(size)); }

double percentile(std::vector<double>& samples, double p) {
  std::sort(samples.begin(), samples.end());
  std::size_t i = static_cast<std::size_t>(p / 100.0 * static_cast<double>(samples.size() - 1));
  return samples[i];
}

int iterations(const std::string& test, int size, const Options& o) {
  bool latency = test.find("_lat") != std::string::npos;
  long budget = latency ? 16L << 20 : 64L << 20;
  long floor = latency ? 50 : 100;
  long asked = latency ? o.lat_iters : o.bw_iters;
  return static_cast<int>(std::min(asked, std::max(floor, budget / size)));
}

struct Row {
  std::string test;
  int size;
  int iters;
  double p50 = -1, p99 = -1, p999 = -1, mib = -1, mmsg = -1;
};

Row latency(Pair& p, const std::string& test, int size, const Options& o) {
  int n = iterations(test, size, o);
  std::vector<double> samples;
  Side& c = p.client;
  Side& s = p.server;
  uint64_t remote_server = reinterpret_cast<uintptr_t>(s.data.data());
  uint64_t remote_client = reinterpret_cast<uintptr_t>(c.data.data());
  int length = std::max(size, 8);
  int warmup = std::min(o.warmup, n);
  for (int i = 1; i <= warmup + n; ++i) {
    double start = now_us();
    if (test == "send_lat") {
      int want = s.messages + 1;
      send(c, size);
      while (s.messages < want) p.poll_both();
      int back = c.messages + 1;
      send(s, size);
      while (c.messages < back) p.poll_both();
    } else if (test == "write_lat") {
      // Each side writes from the buffer the other writes into, so the marks differ (ping 2i, pong
      // 2i + 1): a side must never find its own mark and run ahead while the peer's write still
      // lands in the buffer it sends from (that race hung 4 MiB writes).
      auto* mark_c = reinterpret_cast<volatile uint64_t*>(c.data.data() + length - 8);
      auto* mark_s = reinterpret_cast<volatile uint64_t*>(s.data.data() + length - 8);
      uint64_t ping = 2 * static_cast<uint64_t>(i);
      uint64_t pong = ping + 1;
      std::memcpy(c.data.data() + length - 8, &ping, sizeof ping);
      c.submit(jrdma::OpKind::kWrite, static_cast<uint32_t>(length), remote_server, s.data_mr->rkey());
      while (*mark_s != ping) p.poll_both();
      std::memcpy(s.data.data() + length - 8, &pong, sizeof pong);
      s.submit(jrdma::OpKind::kWrite, static_cast<uint32_t>(length), remote_client, c.data_mr->rkey());
      while (*mark_c != pong) p.poll_both();
    } else {  // read_lat: one READ, full round trip
      int want = c.completions + 1;
      c.submit(jrdma::OpKind::kRead, static_cast<uint32_t>(size), remote_server, s.data_mr->rkey());
      while (c.completions < want) c.poll();
    }
    double elapsed = now_us() - start;
    if (i > warmup) samples.push_back(test == "read_lat" ? elapsed : elapsed / 2);
  }
  Row row{test, size, n};
  row.p50 = percentile(samples, 50);
  row.p99 = percentile(samples, 99);
  row.p999 = percentile(samples, 99.9);
  return row;
}

Row bandwidth(Pair& p, const std::string& test, int size, const Options& o) {
  int n = iterations(test, size, o);
  Side& c = p.client;
  Side& s = p.server;
  uint64_t remote = reinterpret_cast<uintptr_t>(s.data.data());
  double start = 0;
  for (int pass = 0; pass < 2; ++pass) {  // pass 0: warm-up
    int total = pass == 0 ? std::min(o.warmup, n) : n;
    int base = c.completions;
    int server_base = s.messages;
    int posted = 0;
    start = now_us();
    while (c.completions - base < total) {
      while (posted < total && posted - (c.completions - base) < o.window) {
        if (test == "send_bw") {
          send(c, size);
        } else {
          c.submit(test == "write_bw" ? jrdma::OpKind::kWrite : jrdma::OpKind::kRead, static_cast<uint32_t>(size),
                   remote, s.data_mr->rkey());
        }
        ++posted;
      }
      p.poll_both();
    }
    if (test == "send_bw") {
      while (s.messages - server_base < total) p.poll_both();
    }
  }
  double seconds = (now_us() - start) / 1e6;
  Row row{test, size, n};
  row.mib = static_cast<double>(size) * n / seconds / (1 << 20);
  row.mmsg = n / seconds / 1e6;
  return row;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> sizes;
  for (const std::string& part : split_commas(text)) sizes.push_back(std::stoi(part));
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    std::string v = argv[i + 1];
    if (a == "--device")
      o.device = v;
    else if (a == "--ip")
      o.ip = v;
    else if (a == "--sizes")
      o.sizes = parse_sizes(v);
    else if (a == "--tests")
      o.tests = split_commas(v);
    else if (a == "--lat-iters")
      o.lat_iters = std::stoi(v);
    else if (a == "--bw-iters")
      o.bw_iters = std::stoi(v);
    else if (a == "--window")
      o.window = std::min(std::stoi(v), 100);
    else if (a == "--csv")
      o.csv = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  for (const std::string& test : o.tests) {
    if (test != "send_lat" && test != "write_lat" && test != "read_lat" && test != "send_bw" && test != "write_bw" &&
        test != "read_bw") {
      std::fprintf(stderr, "unknown test %s\n", test.c_str());
      return 2;
    }
  }
  try {
    Pair pair;
    open_pair(pair, o, 18900);
    std::vector<Row> rows;
    std::printf("%-10s %9s %7s %10s %10s %10s %11s %9s\n", "test", "bytes", "iters", "p50[us]", "p99[us]", "p99.9[us]",
                "MiB/s", "Mmsg/s");
    for (const std::string& test : o.tests) {
      for (int size : o.sizes) {
        Row r = test.find("_lat") != std::string::npos ? latency(pair, test, size, o) : bandwidth(pair, test, size, o);
        std::printf("%-10s %9d %7d %10.2f %10.2f %10.2f %11.1f %9.4f\n", r.test.c_str(), r.size, r.iters, r.p50, r.p99,
                    r.p999, r.mib, r.mmsg);
        std::fflush(stdout);
        rows.push_back(r);
      }
    }
    close_pair(pair);
    if (!o.csv.empty()) {
      FILE* f = std::fopen(o.csv.c_str(), "w");
      if (f == nullptr) throw jrdma::RdmaError(jrdma::ErrorKind::kNative, "cannot write " + o.csv, errno);
      std::fprintf(f, "test,bytes,iterations,p50_us,p99_us,p999_us,mib_per_s,mmsg_per_s,note\n");
      for (const Row& r : rows) {
        auto v = [](double x) { return x < 0 ? std::string() : std::to_string(x); };
        std::fprintf(f, "%s,%d,%d,%s,%s,%s,%s,%s,\n", r.test.c_str(), r.size, r.iters, v(r.p50).c_str(),
                     v(r.p99).c_str(), v(r.p999).c_str(), v(r.mib).c_str(), v(r.mmsg).c_str());
      }
      std::fclose(f);
    }
  } catch (const jrdma::RdmaError& e) {
    std::fprintf(stderr, "jrdma_native_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
