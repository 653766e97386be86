// Hostile peers of the TCP and shared-memory transports, speaking the wire by hand (raw sockets,
// raw memory files): what a peer that has not proven the pre-shared key can reach (nothing: no
// one-sided request is served, no ring is mapped), what a peer may hand over as rings (only sealed
// memory of the right size), how many half-open connections it can hold (the pending bound counts
// connections still proving the key), whether a guessed key leads anywhere (keys are random, one
// refused access ends the connection), and a server whose first message comes with its answer.
// The raw peer is test/transport/raw_peer.h.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "crypto/crypto.h"
#include "test/transport/raw_peer.h"
#include "test/transport/tcp_loop.h"
#include "transports/stream/shm_handover.h"
#include "transports/stream/tcp_frame.h"

namespace jrdma::test {
namespace {

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif

constexpr std::size_t kRingFileBytes = 2 * (6 * 64 + (std::size_t{1} << 20));  // ShmPipe's mapping: 6 indices, 1 MiB

EngineOptions with_key(const std::string& key) {
  EngineOptions o = options();
  o.psk.assign(key.begin(), key.end());
  return o;
}

tcp::TcpListener* listen_with(Loop& server, const EngineOptions& o, uint32_t max_pending = 64, bool admission = false) {
  sockaddr_storage any = loopback(0);
  return server.context.listen(reinterpret_cast<sockaddr*>(&any), sizeof(sockaddr_in), o, 16, max_pending, admission);
}

// This process's resident memory in bytes (/proc/self/statm).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// A region of the server's with every right, as a token handed to another peer would grant it.
struct Exposed {
  explicit Exposed(Loop& server) : bytes(4096, 0x5a) {
    key = server.context.memory().add(reinterpret_cast<uint64_t>(bytes.data()), bytes.size(),
                                      tcp::kRemoteRead | tcp::kRemoteWrite | tcp::kRemoteAtomic);
  }
  std::vector<uint8_t> bytes;
  uint32_t key;
};

tcp::Frame one_sided(tcp::FrameType type, const Exposed& region) {
  tcp::Frame f;
  f.type = type;
  f.key = region.key;
  f.address = reinterpret_cast<uint64_t>(region.bytes.data());
  f.length = type == tcp::FrameType::kAtomicRequest ? 0 : 64;
  f.operand0 = 1;
  f.request = 1;
  return f;
}

// The finding this suite was written for: with a pre-shared key, a peer that sent a hello, got the
// nonce and never proved anything read a read-only token's bytes, wrote a buffer and added to it.
TEST(HostilePeer, APeerThatNeverProvesTheKeyReadsWritesAndAddsNothing) {
  Loop server;
  tcp::TcpListener* listener = listen_with(server, with_key("the key"));
  Exposed region(server);
  std::vector<uint8_t> before = region.bytes;
  std::vector<uint8_t> payload(64, 0xee);
  for (tcp::FrameType type : {tcp::FrameType::kReadRequest, tcp::FrameType::kWrite, tcp::FrameType::kWriteImmediate,
                              tcp::FrameType::kAtomicRequest, tcp::FrameType::kSourceAhead}) {
    RawPeer peer(listener->port);
    ASSERT_TRUE(peer.connected());
    peer.hello(true);
    wire::Handshake answer;
    ASSERT_TRUE(peer.accepted(true, &answer)) << "the server answers with its nonce";
    tcp::Frame f = one_sided(type, region);
    bool with_payload = type == tcp::FrameType::kWrite || type == tcp::FrameType::kWriteImmediate ||
                        type == tcp::FrameType::kSourceAhead;
    peer.frame(f, with_payload ? payload.data() : nullptr);
    ASSERT_TRUE(peer.closed_by_server()) << "frame type " << static_cast<int>(type);
    EXPECT_TRUE(peer.received.empty()) << "not even an answer: " << peer.received.size() << " bytes";
    EXPECT_EQ(before, region.bytes) << "frame type " << static_cast<int>(type);
  }
  for (int closed = 0; closed < 5; ++closed) {
    EventRecord r;
    ASSERT_TRUE(server.await(EventKind::kChannelClosed, 0, &r)) << closed;
    EXPECT_EQ(static_cast<int32_t>(ClosedCause::kProtocolError), r.a)
        << "a ProtocolException, not an operation's status";
    EXPECT_EQ(static_cast<int32_t>(ProtocolViolation::kNotAuthenticated), r.b);
  }
  // The records come after the loop's turn that closed the channels: their places are given back.
  EXPECT_EQ(0u, server.context.pending_connections());
}

// Framing violations close the channel as a protocol error (a ProtocolException in Java), not as
// an operation's completion status (they surfaced as RdmaOperationException BAD_RESP_ERR / LOC_LEN_ERR).
TEST(HostilePeer, FramingViolationsCloseTheChannelAsAProtocolError) {
  Loop server;
  tcp::TcpListener* listener = listen_with(server, options());
  auto expect_protocol_error = [&](const char* what, auto&& misbehave) {
    RawPeer peer(listener->port);
    peer.hello(false);
    wire::Handshake answer;
    ASSERT_TRUE(peer.accepted(false, &answer)) << what;
    EventRecord r;
    ASSERT_TRUE(server.await(EventKind::kChannelOpen, 0, &r)) << what;
    misbehave(peer);
    ASSERT_TRUE(server.await(EventKind::kChannelClosed, static_cast<uint32_t>(r.key), &r)) << what;
    EXPECT_EQ(static_cast<int32_t>(ClosedCause::kProtocolError), r.a) << what;
    EXPECT_EQ(static_cast<int32_t>(ProtocolViolation::kMalformedFrame), r.b) << what;
  };
  expect_protocol_error("a malformed header", [](RawPeer& peer) {
    uint8_t garbage[tcp::kFrameHeaderSize];
    std::memset(garbage, 0xff, sizeof garbage);
    ASSERT_EQ(static_cast<ssize_t>(sizeof garbage), ::send(peer.fd(), garbage, sizeof garbage, MSG_NOSIGNAL));
  });
  expect_protocol_error("a message beyond the receive buffers", [](RawPeer& peer) {
    tcp::Frame f;
    f.type = tcp::FrameType::kSend;
    f.length = options().eager + 1;
    std::vector<uint8_t> payload(f.length);
    peer.frame(f, payload.data());
  });
  // The sources a peer sends ahead of their STARTs take slots it has credits for (two), and no more.
  expect_protocol_error("more sources ahead than credits", [](RawPeer& peer) {
    std::vector<uint8_t> payload(64, 0x5a);
    for (uint32_t i = 1; i <= 3; ++i) {
      tcp::Frame f;
      f.type = tcp::FrameType::kSourceAhead;
      f.key = i;
      f.address = 0x10000 * i;
      f.length = static_cast<uint32_t>(payload.size());
      peer.frame(f, payload.data());
    }
  });
  expect_protocol_error("a source ahead longer than a slot", [](RawPeer& peer) {
    tcp::Frame f;
    f.type = tcp::FrameType::kSourceAhead;
    f.key = 1;
    f.length = 64 * 1024 + 1;
    std::vector<uint8_t> payload(f.length);
    peer.frame(f, payload.data());
  });
  expect_protocol_error("a response to no request", [](RawPeer& peer) {
    tcp::Frame f;
    f.type = tcp::FrameType::kWriteResponse;
    f.request = 7;
    peer.frame(f);
  });
}

// Keys are drawn at random: from one token nobody walks to the neighbours (they were sequential).
TEST(HostilePeer, MemoryKeysAreRandomAndAKnownKeySaysNothingOfTheNext) {
  tcp::MemoryTable table;
  std::vector<uint8_t> memory(64);
  std::vector<uint32_t> keys;
  for (int i = 0; i < 2000; ++i) {
    keys.push_back(table.add(reinterpret_cast<uint64_t>(memory.data()), memory.size(), tcp::kRemoteRead));
  }
  int near = 0;
  for (std::size_t i = 1; i < keys.size(); ++i) {
    ASSERT_NE(0u, keys[i]);
    uint32_t distance = keys[i] - keys[i - 1];
    if (distance < 65536 || distance > 0u - 65536) ++near;
  }
  EXPECT_LE(near, 5) << "keys close to the previous one: " << near << " of 2000";
  EXPECT_EQ(keys.size(), table.size()) << "no live key drawn twice";
}

// A refused access ends the connection once it is answered: one guess per connection, as a
// responder's queue pair goes to error with the requester's.
TEST(HostilePeer, AGuessedKeyIsAnsweredOnceThenTheConnectionEnds) {
  Loop server;
  tcp::TcpListener* listener = listen_with(server, options());
  Exposed region(server);
  RawPeer peer(listener->port);
  peer.hello(false);
  wire::Handshake answer;
  ASSERT_TRUE(peer.accepted(false, &answer));
  tcp::Frame guess = one_sided(tcp::FrameType::kReadRequest, region);
  guess.key = region.key + 1;
  peer.frame(guess);
  guess.key = region.key + 2;
  peer.frame(guess);  // a second guess, already sent: never served
  ASSERT_TRUE(peer.closed_by_server());
  std::size_t responses = 0;
  for (std::size_t at = 0; at + tcp::kFrameHeaderSize <= peer.received.size(); at += tcp::kFrameHeaderSize) {
    tcp::Frame f;
    ASSERT_TRUE(tcp::decode_frame(peer.received.data() + at, &f));
    if (f.type == tcp::FrameType::kReadResponse) {
      ++responses;
      EXPECT_EQ(tcp::kStatusRemoteAccess, f.status);
    }
  }
  EXPECT_EQ(1u, responses) << "the first guess is answered, the second is not served";
}

// Connections that got the nonce and never prove anything hold a pending place (they held none:
// 150 such connections were all accepted, +117 MB).
TEST(HostilePeer, ConnectionsProvingTheKeyCountAsPending) {
  Loop server;
  tcp::TcpListener* listener = listen_with(server, with_key("the key"), 4);
  std::vector<std::unique_ptr<RawPeer>> silent;
  for (int i = 0; i < 4; ++i) {
    silent.push_back(std::make_unique<RawPeer>(listener->port));
    silent.back()->hello(true);
    wire::Handshake answer;
    ASSERT_TRUE(silent.back()->accepted(true, &answer)) << i;
  }
  RawPeer over(listener->port);
  over.hello(true);
  EXPECT_EQ(wire::RejectReason::kTooManyPending, over.rejected());
  // One of them leaves: its place is free again.
  silent.pop_back();
  EventRecord r;
  ASSERT_TRUE(server.await(EventKind::kChannelClosed, 0, &r));
  RawPeer again(listener->port);
  again.hello(true);
  wire::Handshake answer;
  EXPECT_TRUE(again.accepted(true, &answer));
}

// A listener closed while connections still say hello (or wait for the admission policy): they are
// refused as the server closing, and a hello that comes later reaches nothing of the gone listener.
TEST(HostilePeer, ConnectionsOfAClosedListenerAreRefusedAsTheServerClosing) {
  for (bool admission : {false, true}) {
    Loop server;
    tcp::TcpListener* listener = listen_with(server, options(), 64, admission);
    RawPeer early(listener->port);
    RawPeer parked(listener->port);
    if (admission) parked.hello(false);  // nobody answers the admission request: it stays parked
    for (int i = 0; i < 10000 && server.context.pending_connections() < 2; ++i) ::usleep(1000);
    ASSERT_EQ(2u, server.context.pending_connections()) << "admission " << admission;
    server.context.close_listener(listener);
    EXPECT_EQ(wire::RejectReason::kServerClosing, early.rejected()) << "admission " << admission;
    if (admission) {
      EXPECT_EQ(wire::RejectReason::kServerClosing, parked.rejected());
    }
    for (int i = 0; i < 10000 && server.context.pending_connections() > 0; ++i) ::usleep(1000);  // told, then dropped
    EXPECT_EQ(0u, server.context.pending_connections());
  }
}

// A flood of connections that never prove the key, with a channel's memory as Java's defaults size
// it (128 deep, 4 KiB eager): the victim's resident memory grows by the bound's worth, not the flood's.
TEST(HostilePeer, AFloodOfUnprovenConnectionsCostsTheVictimABoundedAmountOfMemory) {
  Loop server;
  EngineOptions defaults = with_key("the key");
  defaults.depth = 128;
  defaults.eager = 4096;
  tcp::TcpListener* listener = listen_with(server, defaults, 64);
  std::size_t before = resident_bytes();
  std::vector<std::unique_ptr<RawPeer>> flood;
  int accepted = 0;
  for (int i = 0; i < 300; ++i) {
    flood.push_back(std::make_unique<RawPeer>(listener->port));
    flood.back()->hello(true, nullptr, defaults.eager);
    wire::Handshake answer;
    accepted += flood.back()->accepted(true, &answer) ? 1 : 0;
  }
  std::size_t grown = resident_bytes() - std::min(before, resident_bytes());
  EXPECT_EQ(64, accepted) << "the rest are refused as too many pending";
  std::printf("resident memory grew by %zu KiB for 300 connections\n", grown >> 10);
  // Measured: 15 MiB with the bound of 64; 70 MiB when all 300 were let in (the bound lifted).
  if (kThreadSanitizer) {
    // TSan's shadow memory multiplies every allocation's resident cost (73 MiB with the bound): the
    // bound on memory is checked by the plain and the ASan builds, the bound on connections above.
    std::printf("under ThreadSanitizer: the resident-memory bound is not checked\n");
    return;
  }
  EXPECT_LT(grown, std::size_t{40} << 20) << "resident memory grew by " << (grown >> 20) << " MiB for 300 connections";
}

// A server that sends its first frame together with its answer (as an onOpen that sends at once
// can): the client delivers it (it sat in the socket with no epoll edge left to announce it).
TEST(HostilePeer, AMessageThatComesWithTheServersAnswerIsDelivered) {
  int listening = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_storage any = loopback(0);
  ASSERT_EQ(0, ::bind(listening, reinterpret_cast<sockaddr*>(&any), sizeof(sockaddr_in)));
  ASSERT_EQ(0, ::listen(listening, 1));
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  ::getsockname(listening, reinterpret_cast<sockaddr*>(&bound), &length);
  Loop client;
  tcp::TcpChannelEntry* channel = client.context.create_channel(options());
  client.track(channel);
  client.context.connect(channel, loopback(ntohs(bound.sin_port)), 5000);
  int fd = ::accept(listening, nullptr, nullptr);
  ASSERT_GE(fd, 0);
  uint8_t hello[wire::kHandshakeSize + 1];
  ASSERT_EQ(static_cast<ssize_t>(sizeof hello), ::recv(fd, hello, sizeof hello, MSG_WAITALL));
  wire::Handshake ours;
  ours.credits = 16;
  ours.eager = options().eager;
  ours.max_message = 1u << 20;
  ours.rendezvous = 8;
  std::vector<uint8_t> out(1 + wire::kHandshakeSize);
  out[0] = tcp::kAnswerAccepted;
  wire::encode_handshake(ours, out.data() + 1);
  const char text[] = "sent from onOpen";
  wire::MessageHeader header;
  header.length = sizeof text;
  tcp::Frame send;
  send.type = tcp::FrameType::kSend;
  send.length = static_cast<uint32_t>(wire::kHeaderSize + sizeof text);
  std::size_t at = out.size();
  out.resize(at + tcp::kFrameHeaderSize + send.length);
  tcp::encode_frame(send, out.data() + at);
  wire::encode_header(header, out.data() + at + tcp::kFrameHeaderSize);
  std::memcpy(out.data() + at + tcp::kFrameHeaderSize + wire::kHeaderSize, text, sizeof text);
  ASSERT_EQ(static_cast<ssize_t>(out.size()), ::send(fd, out.data(), out.size(), MSG_NOSIGNAL));  // one segment
  ASSERT_TRUE(client.await_messages(1)) << "the message that came with the answer was never delivered";
  EXPECT_EQ(std::string(text), std::string(reinterpret_cast<const char*>(client.messages()[0].data())));
  client.context.destroy_channel(channel);
  ::close(fd);
  ::close(listening);
}

// A raw shared-memory client: a memory file of its own making, handed over with a ticket.
struct HandedOver {
  HandedOver(uint16_t port, int seals, std::size_t size) {
    fd = ::memfd_create("hostile-rings", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    EXPECT_EQ(0, ::ftruncate(fd, static_cast<off_t>(size)));
    if (seals != 0) {
      EXPECT_EQ(0, ::fcntl(fd, F_ADD_SEALS, seals));
    }
    EXPECT_TRUE(crypto::random_bytes(ticket, sizeof ticket));
    taken = tcp::ShmHandover::offer(port, ticket, fd);
  }
  ~HandedOver() { ::close(fd); }
  int fd;
  uint8_t ticket[wire::kShmTicketSize];
  bool taken;
};

// How often this process maps a memory file of that name (/proc/self/maps).
int mappings_of(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  int count = 0;
  for (std::string line; std::getline(maps, line);) count += line.find("memfd:" + name) != std::string::npos ? 1 : 0;
  return count;
}

// A file the peer could still shrink under a mapping (the JVM died of SIGBUS when a peer truncated
// the rings), or one of the wrong size, is not taken: the channel stays on TCP, or is refused where
// shared memory is required.
TEST(HostilePeer, RingsThatAreNotSealedOrNotTheRightSizeAreNotTaken) {
  for (auto [seals, size] : {std::pair<int, std::size_t>{0, kRingFileBytes},
                             {F_SEAL_SHRINK | F_SEAL_GROW, kRingFileBytes},
                             {F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL, 4096}}) {
    for (tcp::SharedMemory mode : {tcp::SharedMemory::kPreferred, tcp::SharedMemory::kRequired}) {
      Loop server(mode);
      tcp::TcpListener* listener = listen_with(server, options());
      HandedOver file(listener->port, seals, size);
      ASSERT_TRUE(file.taken) << "the server's handover socket takes the descriptor";
      RawPeer peer(listener->port);
      peer.hello(false, file.ticket);
      if (mode == tcp::SharedMemory::kRequired) {
        EXPECT_EQ(wire::RejectReason::kNoSharedMemory, peer.rejected()) << "seals " << seals << ", size " << size;
        continue;
      }
      wire::Handshake answer;
      ASSERT_TRUE(peer.accepted(false, &answer));
      EXPECT_EQ(0, answer.flags & wire::kFlagSharedMemory) << "seals " << seals << ", size " << size;
      if (seals == 0) {
        EXPECT_EQ(0, ::ftruncate(file.fd, 0)) << "the peer shrinks its file: nothing of ours maps it";
      }
      EXPECT_EQ(0, mappings_of("hostile-rings")) << "never mapped by the server";
      tcp::Frame early;
      early.type = tcp::FrameType::kRingsFollow;
      peer.frame(early);
      EXPECT_TRUE(peer.closed_by_server()) << "frames through rings it was never given";
    }
  }
}

// Sealed rings of the right size, offered by a peer that never proves the key: the server checks
// them but maps nothing, and a switch to the rings before the proof ends the connection.
TEST(HostilePeer, NoRingIsMappedBeforeTheProof) {
  Loop server(tcp::SharedMemory::kPreferred);
  tcp::TcpListener* listener = listen_with(server, with_key("the key"));
  HandedOver file(listener->port, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL, kRingFileBytes);
  ASSERT_TRUE(file.taken);
  RawPeer peer(listener->port);
  peer.hello(true, file.ticket);
  wire::Handshake answer;
  ASSERT_TRUE(peer.accepted(true, &answer));
  EXPECT_NE(0, answer.flags & wire::kFlagSharedMemory) << "well-formed rings are taken";
  EXPECT_EQ(0, mappings_of("hostile-rings")) << "but not mapped before the proof";
  tcp::Frame early;
  early.type = tcp::FrameType::kRingsFollow;
  peer.frame(early);
  EXPECT_TRUE(peer.closed_by_server());
  EXPECT_EQ(0, mappings_of("hostile-rings"));
}

// Whoever connects to the handover socket may leave descriptors and connections there: bounded,
// and gone after the timeout; a message that is not one descriptor and a ticket is not kept.
TEST(HostilePeer, TheHandoverSocketHoldsABoundedNumberOfThingsForABoundedTime) {
  tcp::ShmHandover handover(0, 64);  // port 0: a name of its own for the test; 64 pending at most
  int file = ::memfd_create("left-behind", MFD_CLOEXEC);
  uint8_t ticket[wire::kShmTicketSize] = {1};
  int offered = 0;
  for (int i = 0; i < 200; ++i) offered += tcp::ShmHandover::offer(0, ticket, file) ? 1 : 0;
  EXPECT_EQ(-1, handover.claim(reinterpret_cast<const uint8_t*>("another ticket of thirty-two b.")));
  EXPECT_LE(handover.waiting(), handover.max_waiting());
  EXPECT_LT(offered, 200) << "beyond the bound the backlog fills and offers fail";
  handover.expire(std::chrono::steady_clock::now() + std::chrono::hours(1), std::chrono::milliseconds(1));
  EXPECT_EQ(0u, handover.waiting()) << "all expired";
  uint8_t fresh[wire::kShmTicketSize] = {2};
  ASSERT_TRUE(tcp::ShmHandover::offer(0, fresh, file)) << "room again";
  int claimed = handover.claim(fresh);
  EXPECT_GE(claimed, 0) << "an offer made now is taken";
  if (claimed >= 0) ::close(claimed);
  ::close(file);
}

// A peer the admission policy refuses: its ring file stays where it was handed over, never taken
// (it was opened, mapped and unlinked before the decision). The proof: an admitted hello naming
// the same ticket afterwards still gets the rings.
TEST(HostilePeer, ARefusedPeersRingFileIsNeverTaken) {
  Loop server(tcp::SharedMemory::kPreferred);
  int decisions = 0;
  server.decide_admissions([&decisions] { return decisions++ > 0; });  // the first is refused
  tcp::TcpListener* listener = listen_with(server, options(), 64, true);
  HandedOver file(listener->port, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL, kRingFileBytes);
  ASSERT_TRUE(file.taken);
  {
    RawPeer refused(listener->port);
    refused.hello(false, file.ticket);
    EXPECT_EQ(wire::RejectReason::kAdmissionRefused, refused.rejected());
  }
  RawPeer admitted(listener->port);
  admitted.hello(false, file.ticket);
  wire::Handshake answer;
  ASSERT_TRUE(admitted.accepted(false, &answer));
  EXPECT_NE(0, answer.flags & wire::kFlagSharedMemory) << "the file was still there for the admitted hello";
}

}  // namespace
}  // namespace jrdma::test
