// libFuzzer target: the TCP transport fed any byte stream by its peer — frames well-formed or not,
// requests on memory with and without the right key, responses to nothing, messages with no receive
// posted, the stream cut anywhere — with a channel engine above it. Besides ASan/UBSan, checks that
// nothing outside the one region the table grants changed, and that the stream always ends.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "protocol/channel_engine.h"
#include "transports/stream/tcp_channel.h"

using namespace jrdma;

namespace {
class NullSink : public EventSink {
 public:
  void emit(const EventRecord&) override {}
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return 0;
  EngineOptions options;
  options.depth = 8;
  options.eager = 256;
  std::vector<uint8_t> memory(ChannelMemoryLayout::of(options.depth, options.eager).size);
  // The granted region sits between two canaries that nothing may touch.
  std::vector<uint8_t> space(3 * 256, 0xC3);
  uint8_t* region = space.data() + 256;
  tcp::MemoryTable table;
  uint32_t key =
      table.add(reinterpret_cast<uintptr_t>(region), 256, tcp::kRemoteWrite | tcp::kRemoteRead | tcp::kRemoteAtomic);
  NullSink sink;
  {
    tcp::TcpChannel transport(fds[0], memory.data(), options.eager, table);
    ChannelEngine engine(1, options, ChannelMemory{memory.data(), memory.size()}, sink);
    engine.attach(&transport);
    engine.set_peer(engine.local_handshake());
    engine.open();
    // The input, with the key and the region's address patched in where the bytes say so, so
    // that valid requests are found too: byte 8..11 and 16..23 of each 48-byte header.
    std::vector<uint8_t> stream(data, data + size);
    for (std::size_t at = 0; at + tcp::kFrameHeaderSize <= stream.size(); at += tcp::kFrameHeaderSize) {
      if (stream[at + 3] & 1) {  // byte 3 must be 0 in a valid header: this bit picks patching instead
        stream[at + 3] = 0;
        std::memcpy(&stream[at + 8], &key, 4);
        uint64_t address = reinterpret_cast<uintptr_t>(region) + (stream[at + 16] % 64) * 4;
        std::memcpy(&stream[at + 16], &address, 8);
      }
    }
    std::size_t written = 0;
    while (written < stream.size()) {
      ssize_t n = ::write(fds[1], stream.data() + written, stream.size() - written);
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
      transport.socket_readable();  // what the context's epoll says after bytes came
      transport.process(engine);    // drains what it can so the socket buffer does not fill
    }
    ::shutdown(fds[1], SHUT_WR);
    tcp::TcpChannel::State state = tcp::TcpChannel::State::kOpen;
    for (int i = 0; i < 10000 && state == tcp::TcpChannel::State::kOpen; ++i) {
      transport.socket_readable();  // no epoll here: every turn may read (the end is there to read)
      state = transport.process(engine);
      char sink_bytes[4096];
      while (::recv(fds[1], sink_bytes, sizeof sink_bytes, MSG_DONTWAIT) > 0) {
      }
    }
    if (state == tcp::TcpChannel::State::kOpen) std::abort();  // a stream cut short must end
  }
  ::close(fds[1]);
  for (std::size_t i = 0; i < 256; ++i) {
    if (space[i] != 0xC3 || space[512 + i] != 0xC3) std::abort();  // a byte outside the grant changed
  }
  return 0;
}
