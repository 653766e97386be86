// libFuzzer target: one channel engine fed by a hostile peer and a careless application. The input
// is a program: raw messages into the receive ring (any bytes, any length), well-formed headers
// with fuzzed fields (rendezvous STARTs and DONEs included), completions, submissions of every
// kind with fuzzed arguments (the remote-memory agent's included), flush, tick, close, abort and
// budget retries — in any order. Besides ASan/UBSan it checks the engine's promise to Java: every
// operation reported at most once, kOpDone in submission order, an allocation request only by
// kAgentReply, nothing after kChannelClosed.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "protocol/channel_engine.h"
#include "test/protocol/fake_transport.h"
#include "wire/agent_message.h"
#include "wire/control_message.h"
#include "wire/message_header.h"

namespace {

using namespace jrdma;

constexpr uint32_t kDepth = 8;
constexpr uint32_t kEager = 256;
constexpr uint32_t kPeerSlots = 16;
constexpr std::size_t kSourceBytes = 1 << 16;

struct Reader {
  const uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  bool more() const { return at < size; }
  uint8_t byte() { return at < size ? data[at++] : 0; }
  uint32_t u32() { return byte() | (byte() << 8) | (byte() << 16) | (static_cast<uint32_t>(byte()) << 24); }
};

// What Java would see; aborts on a broken promise.
class CheckingSink : public EventSink {
 public:
  void emit(const EventRecord& r) override {
    if (closed) std::abort();  // nothing after kChannelClosed
    switch (static_cast<EventKind>(r.kind)) {
      case EventKind::kOpDone: {
        auto seq = static_cast<uint64_t>(r.c);
        if (reported.count(seq) != 0 || submitted.count(seq) == 0 || allocations.count(seq) != 0) std::abort();
        if (!reported.empty() && seq < last_done) std::abort();  // submission order
        last_done = seq;
        reported.insert(seq);
        break;
      }
      case EventKind::kOpsUnposted:
        for (uint64_t seq : submitted) {
          if (seq >= static_cast<uint64_t>(r.c)) reported.insert(seq);
        }
        break;
      case EventKind::kMessage:
        held.push_back(static_cast<uint32_t>(r.a));
        break;
      case EventKind::kImmediate:
        held.push_back(static_cast<uint32_t>(r.a));
        break;
      case EventKind::kTransferNeedsBuffer:
        if (static_cast<uint64_t>(r.d) > kSourceBytes) std::abort();  // above our max_message
        needs.emplace_back(static_cast<uint64_t>(r.c), static_cast<uint64_t>(r.d));
        break;
      case EventKind::kAgentReply: {  // answers (or times out) an allocation request, once
        auto seq = static_cast<uint64_t>(r.c);
        if (allocations.count(seq) == 0 || reported.count(seq) != 0) std::abort();
        reported.insert(seq);
        break;
      }
      case EventKind::kAgentRequest:
        agent_requests.push_back(static_cast<uint64_t>(r.c));
        break;
      case EventKind::kChannelClosed:
        closed = true;
        break;
      default:
        break;
    }
  }
  std::set<uint64_t> submitted;
  std::set<uint64_t> reported;
  uint64_t last_done = 0;
  std::vector<uint32_t> held;
  std::vector<std::pair<uint64_t, uint64_t>> needs;
  std::set<uint64_t> allocations;        // seqs of kAllocateRemote submissions
  std::vector<uint64_t> agent_requests;  // the peer's requests Java has not answered
  bool closed = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Reader in{data, size};
  static std::vector<uint8_t> source(2 * kSourceBytes, 0x5a);  // what the peer "exposes": any offset + max_message
  static std::vector<uint8_t> destination(kSourceBytes, 0);    // Java's buffers
  static std::vector<uint8_t> local(kSourceBytes, 0x11);       // Java's send buffers
  std::vector<uint8_t> peer_ring(static_cast<std::size_t>(kPeerSlots) * 1024);

  EngineOptions options;
  options.depth = kDepth;
  options.eager = kEager;
  options.graceful_close_ms = 10;
  options.max_message = kSourceBytes;
  options.rendezvous = 2;
  options.read_chunk = 1000;
  options.max_reads = 2;
  options.keepalive_ms = 1000;
  options.psk = {'f', 'u', 'z', 'z', 'k', 'e', 'y'};  // ticks up to 5 s apart: silence closes, idle sends keepalives
  ReceiveBudget budget(3000);
  options.budget = &budget;
  std::vector<uint8_t> memory(ChannelMemoryLayout::of(kDepth, kEager).size);
  CheckingSink sink;
  test::FakeTransport transport(memory.data(), kEager);
  test::FakeTransport peer(peer_ring.data(), 1024);
  peer.serves_any_read = true;
  transport.connect(&peer);
  peer.connect(&transport);
  ChannelEngine engine(1, options, ChannelMemory{memory.data(), memory.size()}, sink);
  engine.attach(&transport);
  wire::Handshake hs = engine.local_handshake();
  hs.rendezvous = 1 + in.byte() % 4;
  hs.keepalive = 1000;
  engine.set_peer(hs);
  if (in.byte() % 2 == 0) {  // half the programs: a channel that must authenticate first
    uint8_t nonce[wire::kNonceSize] = {};
    engine.authenticate(in.byte() % 2 == 0, nonce);
  }
  engine.open();
  uint64_t seq = 0;
  uint64_t next_id = 0;  // the id a well-formed message of the peer carries
  uint32_t peer_slot = 0;

  while (in.more()) {
    switch (in.byte() % 10) {
      case 0: {  // raw bytes into our next posted receive, with a fuzzed byte_len
        if (transport.posted_receives() == 0) break;
        uint32_t slot = transport.first_posted_receive();
        transport.take_first_receive();
        uint32_t length = in.byte() % (kEager + 1);
        for (uint32_t i = 0; i < length; ++i) transport.ring_slot(slot)[i] = in.byte();
        transport.push_completion({true, slot, kStatusSuccess, length + (in.byte() % 3 == 0 ? in.byte() : 0u)});
        break;
      }
      case 1: {  // a well-formed header with fuzzed type, credits and payload
        if (transport.posted_receives() == 0) break;
        uint32_t slot = transport.first_posted_receive();
        transport.take_first_receive();
        wire::MessageHeader h;
        h.type = static_cast<wire::MessageType>(1 + in.byte() % 9);
        h.credits = in.byte() % 3;
        h.id = in.byte() % 8 == 0 ? in.u32() : next_id++;
        uint8_t* at = transport.ring_slot(slot);
        if (h.type == wire::MessageType::kRendezvousStart) {
          // A hostile length (up to 2^48) now and then; otherwise one that lies inside the source.
          bool hostile = in.byte() % 4 == 0;
          uint64_t length = hostile ? static_cast<uint64_t>(in.u32()) << (in.byte() % 17) : in.u32() % kSourceBytes;
          uint64_t offset = in.u32() % kSourceBytes;
          uint64_t usable = length <= kSourceBytes - offset ? length : kSourceBytes - offset;
          wire::encode_start({reinterpret_cast<uintptr_t>(source.data()) + offset, in.u32(), hostile ? length : usable},
                             at + wire::kHeaderSize);
          h.length = wire::kControlPayloadSize;
        } else if (h.type == wire::MessageType::kRendezvousDone) {
          wire::encode_done({in.byte() % 4 == 0 ? in.u32() : in.byte() % 8,
                             static_cast<wire::RendezvousStatus>(in.byte() % 3), in.u32()},
                            at + wire::kHeaderSize);
          h.length = wire::kControlPayloadSize;
        } else if (h.type == wire::MessageType::kAuth) {  // a guess at the proof: fuzzed bytes
          for (std::size_t i = 0; i < wire::kAuthPayloadSize; ++i) at[wire::kHeaderSize + i] = in.byte();
          h.length = wire::kAuthPayloadSize;
        } else if (h.type >= wire::MessageType::kAgentRequest) {
          // Agent messages: small ids, sizes and addresses now and then, so that they can match.
          uint8_t* payload = at + wire::kHeaderSize;
          for (std::size_t i = 0; i < wire::kControlPayloadSize; ++i) payload[i] = in.byte() % 4 == 0 ? in.byte() : 0;
          if (in.byte() % 2 == 0) payload[8] = 1 + in.byte() % 7;  // valid access bits (or a valid status)
          h.length = wire::kControlPayloadSize;
        } else {
          h.length = h.type == wire::MessageType::kCredit ? 0 : in.byte() % (kEager - wire::kHeaderSize + 1);
        }
        wire::encode_header(h, at);
        transport.push_completion({true, slot, kStatusSuccess, static_cast<uint32_t>(wire::kHeaderSize) + h.length});
        break;
      }
      case 2: {  // a Java submission
        Submission s{};
        uint8_t kind = 1 + in.byte() % 16;
        // Never the internal kinds (kCredit, kControl, kTransferRead).
        s.kind = kind == 2 || kind == 11 || kind == 12 ? 1 : kind;
        s.seq = seq;
        uint32_t length = in.byte() % 2 == 0 ? in.byte() : in.u32() % kSourceBytes;
        s.local_address = reinterpret_cast<uintptr_t>(local.data());
        s.length = length;
        s.remote_address = reinterpret_cast<uintptr_t>(source.data());
        s.rkey = in.u32();
        if (s.kind == static_cast<uint8_t>(OpKind::kReleaseReceive)) {
          if (!sink.held.empty() && in.byte() % 4 != 0) {
            s.receive_slot = sink.held.back();
            sink.held.pop_back();
          } else {
            s.receive_slot = in.u32();
          }
        } else if (s.kind == static_cast<uint8_t>(OpKind::kTransferBuffer)) {
          if (!sink.needs.empty() && in.byte() % 4 != 0) {
            s.compare_add = sink.needs.back().first;
            s.length = in.byte() % 8 == 0 ? 0 : static_cast<uint32_t>(sink.needs.back().second);
            sink.needs.pop_back();
          } else {
            s.compare_add = in.u32();
          }
          s.local_address = reinterpret_cast<uintptr_t>(destination.data());
        } else if (s.kind == static_cast<uint8_t>(OpKind::kReceive)) {
          s.local_address = reinterpret_cast<uintptr_t>(destination.data());
        } else if (s.kind == static_cast<uint8_t>(OpKind::kAgentAnswer)) {
          if (!sink.agent_requests.empty() && in.byte() % 4 != 0) {
            s.compare_add = sink.agent_requests.back();
            sink.agent_requests.pop_back();
          } else {
            s.compare_add = in.u32();
          }
          s.immediate = in.byte() % 4;
        } else {
          s.compare_add = in.byte() % 2 == 0 ? in.byte() : in.u32();
          s.immediate = in.byte() % 8;
        }
        bool is_op = s.kind != static_cast<uint8_t>(OpKind::kReleaseReceive) &&
                     s.kind != static_cast<uint8_t>(OpKind::kTransferBuffer) &&
                     s.kind != static_cast<uint8_t>(OpKind::kReceive) &&
                     s.kind != static_cast<uint8_t>(OpKind::kAgentAnswer);
        if (is_op) sink.submitted.insert(seq);
        if (s.kind == static_cast<uint8_t>(OpKind::kAllocateRemote)) sink.allocations.insert(seq);
        ++seq;
        try {
          engine.submit(&s, 1);
        } catch (const RdmaError&) {
          if (is_op) sink.submitted.erase(seq - 1);  // refused as a malformed submission: never accepted
        }
        break;
      }
      case 3:  // the transport executes one of our requests (the peer keeps receives posted)
        if (peer.posted_receives() < 2) {
          uint32_t slots[1] = {peer_slot++ % kPeerSlots};
          peer.post_receives(slots, 1);
        }
        transport.execute_one(in.byte() % 16 == 0 ? 12 : kStatusSuccess);
        break;
      case 4:
      case 5:
        transport.deliver_one(engine);
        break;
      case 6:
        engine.flush();
        break;
      case 7:
        engine.tick(std::chrono::steady_clock::now() + std::chrono::milliseconds(in.byte() * 20));
        break;
      case 8:
        for (uint32_t key : budget.waiters_to_retry()) {
          if (key == 1) engine.retry_budget();
        }
        break;
      case 9:
        switch (in.byte() % 8) {
          case 0:
            engine.close();
            break;
          case 1:
            engine.abort(ClosedCause::kPeerDisconnected);
            break;
          case 2:
            engine.on_receive_error(in.byte() % 22);
            break;
          default:
            break;
        }
        break;
    }
  }
  engine.abort(ClosedCause::kLocal);
  // Everything accepted was reported, once.
  if (!sink.closed) std::abort();
  if (transport.exposures() != 0) std::abort();  // no source stays readable
  return 0;
}
