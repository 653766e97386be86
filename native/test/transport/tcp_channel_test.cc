// The channel engine over the TCP transport, on a real loopback connection: messages of every size
// (eager and rendezvous) both ways, one-sided operations on the peer's registered memory, keys and
// ranges the peer never granted, a peer that goes away, and bytes no peer of ours sends.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "test/transport/tcp_pair.h"

namespace jrdma::test {
namespace {

EngineOptions small_options() {
  EngineOptions options;
  options.depth = 16;
  options.eager = 1024;
  options.read_chunk = 4096;  // a rendezvous message takes several READs
  options.max_reads = 4;
  return options;
}

bool all_reported_once(const TcpSide& s, int expected_status) {
  for (uint64_t seq = 0; seq < s.next_seq; ++seq) {
    auto it = s.reports.find(seq);
    if (it == s.reports.end() || it->second != 1) return false;
    if (s.statuses.count(seq) != 0 && s.statuses.at(seq) != expected_status) return false;
  }
  return true;
}

TEST(TcpChannel, MessagesOfEverySizeArriveIntactAndInOrderBothWays) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  const uint32_t sizes[] = {8, 200, 1024 - 32, 1024 - 16, 3 * 1024 + 5, 40000, 1};
  constexpr int kMessages = 300;
  for (int i = 0; i < kMessages; ++i) {
    for (TcpSide* s : {&pair.a, &pair.b}) pair.submit(*s, s->make(OpKind::kSend, std::max<uint32_t>(sizes[i % 7], 8)));
  }
  ASSERT_TRUE(pair.run_until([&] {
    return pair.a.messages_received == kMessages && pair.b.messages_received == kMessages &&
           pair.a.reports.size() == kMessages && pair.b.reports.size() == kMessages;
  })) << "received "
      << pair.a.messages_received << " and " << pair.b.messages_received;
  EXPECT_EQ("", pair.a.violation);
  EXPECT_EQ("", pair.b.violation);
  uint64_t large = 0;
  for (int i = 0; i < kMessages; ++i) large += sizes[i % 7] > 1024 - 16;
  EXPECT_EQ(large, pair.a.large_received) << "3 KiB and 40 KB messages go by rendezvous";
  EXPECT_EQ(pair.a.large_received, pair.b.large_received);
  EXPECT_TRUE(all_reported_once(pair.a, 0));
  EXPECT_TRUE(all_reported_once(pair.b, 0));
  EXPECT_EQ(0u, pair.a.table.size() - 1) << "every rendezvous source was revoked (only the test's region is left)";
  EXPECT_FALSE(pair.a.closed || pair.b.closed);
}

// A channel touches as many receive buffers as it has messages outstanding, not its whole ring: the
// receive posted last is filled first (with the first posted first, a message at a time cycles
// through all of them, and every buffer's pages stay resident while the channel lives).
TEST(TcpChannel, MessagesOneAtATimeReuseOneReceiveBuffer) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  constexpr uint64_t kMessages = 100;  // many times the 16 receive buffers
  for (uint64_t i = 0; i < kMessages; ++i) {
    pair.submit(pair.a, pair.a.make(OpKind::kSend, 200));
    ASSERT_TRUE(pair.run_until([&] { return pair.b.messages_received == i + 1; })) << "message " << i;
  }
  EXPECT_LE(pair.b.receive_slots.size(), 2u) << "receive buffers used: " << pair.b.receive_slots.size();
  EXPECT_EQ("", pair.b.violation);
}

// Frames queued together leave together: a batch of sends posted at once is one system call, not
// one per frame (the socket's buffer takes them all: a few KiB on an idle loopback connection).
TEST(TcpChannel, SendsPostedTogetherLeaveInOneSystemCall) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  constexpr int kBatch = 16;  // the channel's credits: all may go at once
  Submission batch[kBatch];
  for (Submission& s : batch) s = pair.a.make(OpKind::kSend, 200);
  uint64_t calls_before = pair.a.transport.transmit_calls();
  pair.a.engine.submit(batch, kBatch);
  pair.a.engine.flush();
  EXPECT_EQ(1u, pair.a.transport.transmit_calls() - calls_before) << "16 sends of 200 bytes";
  ASSERT_TRUE(pair.run_until([&] { return pair.b.messages_received == kBatch; }));
  EXPECT_EQ("", pair.b.violation);
}

// Over a stream, a rendezvous source up to a slot (64 KiB) is written into the stream before its START
// (sources_ahead.h): the receiver's READs of it are served from what arrived, none reaches the sender.
// Larger ones are READ from the peer as before. Both arrive intact.
TEST(TcpChannel, ASourceUpToASlotComesAheadOfItsStartAndNoneOfItsReadsReachesThePeer) {
  TcpPair pair(small_options());  // READs of 4 KiB: a 40,000-byte message is ten of them
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  constexpr uint64_t kMessages = 20;
  for (uint64_t i = 0; i < kMessages; i += 2) {  // two at a time: as many as the receiver has slots
    pair.submit(pair.a, pair.a.make(OpKind::kSend, 40000));
    pair.submit(pair.a, pair.a.make(OpKind::kSend, 40000));
    ASSERT_TRUE(pair.run_until([&] { return pair.a.reports.size() == i + 2; }));
  }
  ASSERT_TRUE(pair.run_until([&] { return pair.b.large_received == kMessages; }));
  EXPECT_EQ(kMessages * 10, pair.b.transport.reads_served_ahead());
  pair.submit(pair.a, pair.a.make(OpKind::kSend, 64 * 1024));
  pair.submit(pair.a, pair.a.make(OpKind::kSend, 64 * 1024 + 1));  // longer than a slot: READ from a
  ASSERT_TRUE(
      pair.run_until([&] { return pair.b.large_received == kMessages + 2 && pair.a.reports.size() == kMessages + 2; }));
  EXPECT_EQ(kMessages * 10 + 16, pair.b.transport.reads_served_ahead());
  EXPECT_TRUE(all_reported_once(pair.a, 0));
  EXPECT_EQ(0u, pair.a.table.size() - 1) << "every source was revoked";
  EXPECT_EQ("", pair.a.violation);
  EXPECT_EQ("", pair.b.violation);
}

// A transfer the receiver refuses (no buffer for it) gives the slot its source took back before the
// answer reaches the sender: the sender's credits and the receiver's slots stay in step, so more
// sources than there are slots go ahead without the receiver seeing a peer beyond its credits.
TEST(TcpChannel, ARefusedTransferGivesItsSourcesSlotBack) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  pair.b.refuse_buffers = true;
  constexpr uint64_t kRefused = 5;  // more than the two slots
  for (uint64_t i = 0; i < kRefused; ++i) {
    Submission send = pair.a.make(OpKind::kSend, 40000);
    pair.submit(pair.a, send);
    ASSERT_TRUE(pair.run_until([&] { return pair.a.reports.count(send.seq) == 1; })) << i;
    EXPECT_EQ(static_cast<int>(OpStatus::kPeerCouldNotReceive), pair.a.statuses[send.seq]) << i;
  }
  pair.b.refuse_buffers = false;
  pair.b.messages_received = kRefused;  // the refused ones' indices are not expected any more
  pair.submit(pair.a, pair.a.make(OpKind::kSend, 40000));
  ASSERT_TRUE(pair.run_until([&] { return pair.b.large_received == 1 && pair.b.messages_received == kRefused + 1; }));
  EXPECT_EQ(10u, pair.b.transport.reads_served_ahead()) << "the one accepted, from its source ahead";
  EXPECT_EQ("", pair.a.violation);
  EXPECT_EQ("", pair.b.violation);
  EXPECT_FALSE(pair.a.closed || pair.b.closed);
}

// After traffic, a channel that moved nothing for a second of ticks gives its staging and read-ahead
// pages back; traffic afterwards finds them again (zero pages) and arrives intact.
TEST(TcpChannel, AChannelIdleForTenTicksGivesItsBufferPagesBackAndStillWorks) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  auto exchange = [&](uint64_t messages) {
    uint64_t target = pair.b.messages_received + messages;
    for (uint64_t i = 0; i < messages; ++i) pair.submit(pair.a, pair.a.make(OpKind::kSend, i % 2 == 0 ? 200 : 40000));
    return pair.run_until([&] { return pair.b.messages_received == target; });
  };
  ASSERT_TRUE(exchange(20));
  tcp::TcpChannel& reader = pair.b.transport;
  EXPECT_GT(reader.resident_buffer_bytes(), 0u) << "it read through its buffers";
  reader.trim_if_idle();  // notes the traffic
  for (int tick = 1; tick < 10; ++tick) reader.trim_if_idle();
  EXPECT_GT(reader.resident_buffer_bytes(), 0u) << "nine idle ticks are not enough";
  reader.trim_if_idle();
  EXPECT_EQ(0u, reader.resident_buffer_bytes()) << "ten are";
  ASSERT_TRUE(exchange(20));
  EXPECT_GT(reader.resident_buffer_bytes(), 0u);
  reader.trim_if_idle();
  EXPECT_GT(reader.resident_buffer_bytes(), 0u) << "traffic since the last tick starts the count again";
  EXPECT_EQ("", pair.b.violation);
  EXPECT_EQ("", pair.a.violation);
}

// A channel whose request waits for the peer's answer is waiting, not idle: however many ticks pass
// (thousands of streaming channels may each wait seconds for their turn), its buffers stay — until the
// answer came and the channel was idle since. `make` builds the request on a (given the pair), which b
// answers; b's loop does not run until the ticks passed.
template <typename MakeRequest>
void expect_pages_kept_until_answered(MakeRequest make, const char* what) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  for (int i = 0; i < 10; ++i) pair.submit(pair.b, pair.b.make(OpKind::kSend, 40000));
  ASSERT_TRUE(pair.run_until([&] { return pair.a.messages_received == 10 && pair.b.reports.size() == 10; }));
  tcp::TcpChannel& waiting = pair.a.transport;
  std::size_t resident = waiting.resident_buffer_bytes();
  ASSERT_GT(resident, 0u) << "it read through its buffers";
  Submission request = make(pair);
  pair.submit(pair.a, request);
  pair.a.engine.flush();  // the request is out; b's loop does not run, so no answer comes
  for (int tick = 0; tick < 30; ++tick) waiting.trim_if_idle();
  EXPECT_EQ(resident, waiting.resident_buffer_bytes()) << what;
  ASSERT_TRUE(pair.run_until([&] { return pair.a.reports.count(request.seq) == 1; }));
  for (int tick = 0; tick < 30; ++tick) waiting.trim_if_idle();
  EXPECT_EQ(0u, waiting.resident_buffer_bytes()) << "answered, and idle since";
  EXPECT_EQ("", pair.a.violation);
}

TEST(TcpChannel, AChannelWaitingForAnAnswerKeepsItsBufferPages) {
  expect_pages_kept_until_answered(
      [](TcpPair& pair) {
        Submission read = pair.a.make(OpKind::kRead, 64);
        read.remote_address = reinterpret_cast<uintptr_t>(pair.b.exposed.data());
        read.rkey = pair.b.exposed_key;
        return read;
      },
      "a read waiting for its answer");
}

// A source sent ahead waits for the peer's DONE as a READ waits for its answer (with thousands of channels
// streaming, trimming such channels cost a fault per page per message: 2,000 channels 4x slower).
TEST(TcpChannel, AChannelWhoseSourceWaitsForTheDoneKeepsItsBufferPages) {
  expect_pages_kept_until_answered([](TcpPair& pair) { return pair.a.make(OpKind::kSend, 40000); },
                                   "a source waiting for its DONE");
}

TEST(TcpChannel, WritesReadsAndAtomicsActOnThePeersRegisteredMemory) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  TcpSide& a = pair.a;
  TcpSide& b = pair.b;
  uint64_t base = reinterpret_cast<uintptr_t>(b.exposed.data());

  Submission write = a.make(OpKind::kWrite, 64);
  std::memset(a.payloads[write.seq].data(), 0x5a, 64);
  write.remote_address = base + 8;
  write.rkey = b.exposed_key;
  pair.submit(a, write);
  Submission immediate = a.make(OpKind::kWriteWithImmediate, 16);
  std::memset(a.payloads[immediate.seq].data(), 0x6b, 16);
  immediate.remote_address = base + 100;
  immediate.rkey = b.exposed_key;
  immediate.immediate = 77;
  pair.submit(a, immediate);
  Submission read = a.make(OpKind::kRead, 64);
  read.remote_address = base + 8;
  read.rkey = b.exposed_key;
  pair.submit(a, read);
  for (int i = 0; i < 10; ++i) {
    Submission add = a.make(OpKind::kFetchAndAdd, 8);
    add.remote_address = base;
    add.rkey = b.exposed_key;
    add.compare_add = 3;
    pair.submit(a, add);
  }
  Submission swap = a.make(OpKind::kCompareAndSwap, 8);
  swap.remote_address = base;
  swap.rkey = b.exposed_key;
  swap.compare_add = 30;
  swap.swap = 1000;
  pair.submit(a, swap);

  ASSERT_TRUE(pair.run_until([&] { return a.reports.size() == a.next_seq && b.immediates.size() == 1; }));
  EXPECT_TRUE(all_reported_once(a, 0));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(0x5a, b.exposed[8 + i]) << "byte " << i << " of the write";
  for (int i = 0; i < 16; ++i) ASSERT_EQ(0x6b, b.exposed[100 + i]);
  EXPECT_EQ(77u, b.immediates[0]);
  EXPECT_EQ(std::vector<uint8_t>(64, 0x5a), a.payloads[read.seq]) << "the read brought the written bytes back";
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(3 * i, a.results[read.seq + 1 + i]) << "fetch-add " << i << " saw the value before it";
  EXPECT_EQ(30, a.results[swap.seq]);
  uint64_t value;
  std::memcpy(&value, b.exposed.data(), 8);
  EXPECT_EQ(1000u, value) << "the compare-and-swap found 30 and swapped";
  EXPECT_FALSE(a.closed || b.closed);
}

// Runs a one-sided request the peer must refuse; returns its status (and the pair is closed).
int refused(OpKind kind, uint32_t key_offset, uint64_t address_offset, uint32_t length, TcpPair& pair) {
  EXPECT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  Submission s = pair.a.make(kind, length);
  s.remote_address = reinterpret_cast<uintptr_t>(pair.b.exposed.data()) + address_offset;
  s.rkey = pair.b.exposed_key + key_offset;
  s.compare_add = 1;
  pair.submit(pair.a, s);
  EXPECT_TRUE(pair.run_until([&] { return pair.a.closed && pair.b.closed; }));
  EXPECT_EQ(1, pair.a.reports[s.seq]);
  return pair.a.statuses.count(s.seq) != 0 ? pair.a.statuses[s.seq] : -1;
}

TEST(TcpChannel, AKeyOrRangeThePeerNeverGrantedFailsWithRemoteAccessAndTouchesNothing) {
  {
    TcpPair pair(small_options());
    std::vector<uint8_t> before = pair.b.exposed;
    EXPECT_EQ(tcp::kStatusRemoteAccess, refused(OpKind::kWrite, 1, 0, 64, pair)) << "a wrong key";
    EXPECT_EQ(before, pair.b.exposed);
    EXPECT_EQ(static_cast<int>(ClosedCause::kOperationFailed), pair.a.closed_cause);
    EXPECT_EQ(tcp::kStatusRemoteAccess, pair.a.closed_code);
    // The responder ends the stream itself once its answer is out, as both queue pairs go to error:
    // a peer gets one guess at a key per connection.
    EXPECT_EQ(static_cast<int>(ClosedCause::kOperationFailed), pair.b.closed_cause);
    EXPECT_EQ(tcp::kStatusRemoteAccess, pair.b.closed_code);
  }
  {
    TcpPair pair(small_options());
    std::vector<uint8_t> before = pair.b.exposed;
    EXPECT_EQ(tcp::kStatusRemoteAccess, refused(OpKind::kWrite, 0, 4096 - 32, 64, pair)) << "beyond the region's end";
    EXPECT_EQ(before, pair.b.exposed);
  }
  {
    TcpPair pair(small_options());
    EXPECT_EQ(tcp::kStatusRemoteAccess, refused(OpKind::kRead, 0, 4096 - 8, 16, pair)) << "a read beyond the end";
  }
  {
    TcpPair pair(small_options());
    EXPECT_EQ(tcp::kStatusRemoteInvalidRequest, refused(OpKind::kFetchAndAdd, 0, 4, 8, pair)) << "a misaligned atomic";
  }
  {
    TcpPair pair(small_options());
    pair.b.table.remove(pair.b.exposed_key);
    EXPECT_EQ(tcp::kStatusRemoteAccess, refused(OpKind::kRead, 0, 0, 8, pair)) << "a key removed from the table";
  }
}

TEST(TcpChannel, APeerThatGoesAwayFailsEveryPendingOperationOnce) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  for (int i = 0; i < 50; ++i) pair.submit(pair.a, pair.a.make(OpKind::kSend, 300));
  pair.b.transport.disconnect();
  ASSERT_TRUE(pair.run_until([&] { return pair.a.closed && pair.b.closed; }));
  for (uint64_t seq = 0; seq < pair.a.next_seq; ++seq) EXPECT_EQ(1, pair.a.reports[seq]) << "send " << seq;
  EXPECT_EQ(static_cast<int>(ClosedCause::kPeerDisconnected), pair.a.closed_cause);
  EXPECT_EQ("", pair.a.violation) << "what arrived before the end arrived intact and in order";
}

// One transport and engine whose peer is a raw socket the test writes to; returns how the
// stream ended after `bytes` arrived, and why.
std::pair<tcp::TcpChannel::State, std::string> after_raw_bytes(const uint8_t* bytes, std::size_t length) {
  auto [ours, raw] = connected_sockets();
  tcp::MemoryTable table;
  EngineOptions options = small_options();
  std::vector<uint8_t> memory(ChannelMemoryLayout::of(options.depth, options.eager).size);
  RecordingSink sink;
  tcp::TcpChannel transport(ours, memory.data(), options.eager, table);
  ChannelEngine engine(1, options, ChannelMemory{memory.data(), memory.size()}, sink);
  engine.attach(&transport);
  engine.set_peer(engine.local_handshake());
  engine.open();
  EXPECT_EQ(static_cast<ssize_t>(length), ::write(raw, bytes, length));
  tcp::TcpChannel::State state = tcp::TcpChannel::State::kOpen;
  for (int i = 0; i < 2000 && state == tcp::TcpChannel::State::kOpen; ++i) {
    transport.socket_readable();  // no epoll here: every turn may read
    state = transport.process(engine);
    ::usleep(1000);
  }
  EXPECT_TRUE(engine.closed());
  ::close(raw);
  return {state, transport.failure()};
}

TEST(TcpChannel, BytesNoPeerOfOursSendsEndTheStreamWithoutTouchingMemory) {
  // A send frame announcing 1 GiB for 1 KiB receive buffers.
  tcp::Frame frame;
  frame.type = tcp::FrameType::kSend;
  frame.length = 1u << 30;
  uint8_t header[tcp::kFrameHeaderSize];
  tcp::encode_frame(frame, header);
  auto [state, why] = after_raw_bytes(header, sizeof header);
  EXPECT_EQ(tcp::TcpChannel::State::kFailed, state);
  EXPECT_NE(std::string::npos, why.find("1073741824 bytes")) << why;

  std::memset(header, 0x7f, sizeof header);  // an unknown frame type
  std::tie(state, why) = after_raw_bytes(header, sizeof header);
  EXPECT_EQ(tcp::TcpChannel::State::kFailed, state);
  EXPECT_NE(std::string::npos, why.find("malformed")) << why;
}

// Java's threads submit while the loop runs: posting and the loop's reading, answering and
// completing share the transport (its lock) and the engine (its own).
TEST(TcpChannel, SubmissionsFromAnotherThreadWhileTheLoopRuns) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  constexpr int kMessages = 400;
  std::vector<Submission> sends;
  for (int i = 0; i < kMessages; ++i) sends.push_back(pair.a.make(OpKind::kSend, i % 3 == 0 ? 5000 : 100));
  std::thread application([&] {
    for (const Submission& s : sends) pair.a.engine.submit(&s, 1);
  });
  bool done =
      pair.run_until([&] { return pair.b.messages_received == kMessages && pair.a.reports.size() == kMessages; });
  application.join();
  ASSERT_TRUE(done) << pair.b.messages_received << " received";
  EXPECT_EQ("", pair.b.violation);
  EXPECT_TRUE(all_reported_once(pair.a, 0));
}

// Both sides at once, every kind mixed in random order and sizes: sends (eager and rendezvous),
// writes, writes with immediate, reads and fetch-adds on the peer's region, so that requests,
// answers and messages interleave on both streams. Everything is reported once and in order of
// submission, messages arrive intact and in order, and the fetch-adds of each side see distinct
// values (the peer executed each once).
TEST(TcpChannel, EveryKindMixedBothWaysKeepsOrderAndExactlyOnce) {
  TcpPair pair(small_options());
  ASSERT_TRUE(pair.run_until([&] { return pair.a.open && pair.b.open; }));
  std::mt19937 random(42);
  std::map<uint64_t, OpKind> kinds[2];
  const OpKind choices[] = {OpKind::kSend, OpKind::kSend,       OpKind::kWrite, OpKind::kWriteWithImmediate,
                            OpKind::kRead, OpKind::kFetchAndAdd};
  for (int i = 0; i < 600; ++i) {
    int side = static_cast<int>(random() % 2);
    TcpSide& s = side == 0 ? pair.a : pair.b;
    TcpSide& peer = side == 0 ? pair.b : pair.a;
    OpKind kind = choices[random() % 6];
    uint32_t length = kind == OpKind::kSend          ? 8 + static_cast<uint32_t>(random() % 5000)
                      : kind == OpKind::kFetchAndAdd ? 8
                                                     : 1 + static_cast<uint32_t>(random() % 256);
    Submission sub = s.make(kind, length);
    uint64_t base = reinterpret_cast<uintptr_t>(peer.exposed.data());
    if (kind == OpKind::kFetchAndAdd) {
      sub.remote_address = base;  // the first 8 bytes count
      sub.compare_add = 1;
    } else if (kind != OpKind::kSend) {
      sub.remote_address = base + 64 + random() % 2048;
      sub.immediate = static_cast<uint32_t>(i);
    }
    sub.rkey = peer.exposed_key;
    kinds[side][sub.seq] = kind;
    pair.submit(s, sub);
    if (i % 50 == 49) pair.run_until([] { return true; });  // let some of it run between bursts
  }
  ASSERT_TRUE(pair.run_until([&] {
    return pair.a.reports.size() == pair.a.next_seq && pair.b.reports.size() == pair.b.next_seq &&
           pair.a.messages_received == pair.b.messages_sent && pair.b.messages_received == pair.a.messages_sent;
  })) << pair.a.reports.size()
      << "/" << pair.a.next_seq << " and " << pair.b.reports.size() << "/" << pair.b.next_seq;
  EXPECT_EQ("", pair.a.violation);
  EXPECT_EQ("", pair.b.violation);
  EXPECT_TRUE(all_reported_once(pair.a, 0));
  EXPECT_TRUE(all_reported_once(pair.b, 0));
  for (int side = 0; side < 2; ++side) {
    TcpSide& s = side == 0 ? pair.a : pair.b;
    std::set<int64_t> seen;
    for (const auto& [seq, kind] : kinds[side]) {
      if (kind == OpKind::kFetchAndAdd) {
        EXPECT_TRUE(seen.insert(s.results[seq]).second) << "a fetch-add saw " << s.results[seq] << " twice";
      }
    }
  }
  EXPECT_FALSE(pair.a.closed || pair.b.closed);
}

}  // namespace
}  // namespace jrdma::test
