// The native engine against a hand-made peer speaking raw rdma_cm/verbs (inside the test-rxe VM):
// a wrong protocol version is rejected with a reason both sides can decode, connection requests
// never completed are bounded per listener, and a malformed
// message, a rendezvous announcing 1 TiB or one with a forged key end that channel with the reason
// instead of being trusted.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <rdma/rdma_cma.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "raw_peer.h"
#include "transports/verbs/verbs_context.h"
#include "wire/control_message.h"
#include "wire/handshake.h"
#include "wire/message_header.h"

using namespace raw_peer;  // NOLINT: the test file is about the raw peer

TEST(ChannelDevice, WrongProtocolVersionIsRejectedWithAReasonBothSidesDecode) {
  jrdma::VerbsContext server(rxe0());
  jrdma::ChannelOptions options;
  options.engine.eager = 4096;
  sockaddr_in bind = address(kServerIp, 21001);
  jrdma::VerbsListener* listener = server.listen(reinterpret_cast<sockaddr*>(&bind), options, 8);

  std::atomic<bool> client_done{false};
  RawClient client;
  jrdma::wire::Handshake future = valid_handshake();
  future.version = jrdma::wire::kProtocolVersion + 1;
  std::thread peer([&] {
    client.connect(21001, future);
    client_done = true;
  });
  bool server_saw = false;
  run_loop(
      server,
      [&](const jrdma::EventRecord& r) {
        if (r.kind == static_cast<int32_t>(jrdma::EventKind::kIncomingRejected)) {
          EXPECT_EQ(static_cast<int32_t>(jrdma::wire::RejectReason::kVersionMismatch), r.a);
          EXPECT_EQ(jrdma::wire::kProtocolVersion + 1, r.b) << "the server reports the client's version";
          server_saw = true;
        }
        return false;
      },
      [&] { return server_saw && client_done; });
  peer.join();
  EXPECT_EQ(RDMA_CM_EVENT_REJECTED, client.last);
  jrdma::wire::RejectReason reason;
  uint32_t detail = 0;
  ASSERT_TRUE(
      jrdma::wire::decode_reject(client.last_private_data.data(), client.last_private_data.size(), &reason, &detail));
  EXPECT_EQ(jrdma::wire::RejectReason::kVersionMismatch, reason);
  EXPECT_EQ(jrdma::wire::kProtocolVersion, detail) << "the client learns the server's version";
  server.close_listener(listener);
  jrdma::EventRecord records[8];
  server.wait_events(records, 8, 0, jrdma::PollMode::kEvent);  // runs the queued close
}

TEST(ChannelDevice, ARendezvousAnnouncingOneTebibyteIsAProtocolErrorBeforeAnyAllocation) {
  RawChannel raw(21003);
  ASSERT_TRUE(raw.ok);
  raw.send_start(0x10000, 0x1234, 1ull << 40);
  bool asked_for_memory = false;
  run_loop(raw.server, [&](const jrdma::EventRecord& r) {
    asked_for_memory |= r.kind == static_cast<int32_t>(jrdma::EventKind::kTransferNeedsBuffer);
    if (r.kind != static_cast<int32_t>(jrdma::EventKind::kChannelClosed)) return false;
    EXPECT_EQ(static_cast<int32_t>(jrdma::ClosedCause::kProtocolError), r.a);
    EXPECT_EQ(static_cast<int32_t>(jrdma::ProtocolViolation::kTransferTooLong), r.b);
    EXPECT_EQ(1ll << 40, r.c) << "the announced length is reported";
    return true;
  });
  EXPECT_FALSE(asked_for_memory);
}

TEST(ChannelDevice, ARendezvousWithAForgedKeyFailsTheReadAndClosesOnlyThatChannel) {
  RawChannel raw(21004);
  ASSERT_TRUE(raw.ok);
  // A real buffer of the client's, but a key it never registered.
  static uint8_t secret[8192];
  // Java's part: a destination for the transfer (here plain registered memory).
  std::vector<uint8_t> destination(sizeof secret);
  auto region = raw.server.register_memory(destination.data(), destination.size(), IBV_ACCESS_LOCAL_WRITE);
  raw.send_start(reinterpret_cast<uintptr_t>(secret), 0xdead00, sizeof secret);
  run_loop(raw.server, [&](const jrdma::EventRecord& r) {
    if (r.kind == static_cast<int32_t>(jrdma::EventKind::kTransferNeedsBuffer)) {
      jrdma::Submission s{};
      s.kind = static_cast<uint8_t>(jrdma::OpKind::kTransferBuffer);
      s.compare_add = static_cast<uint64_t>(r.c);
      s.local_address = reinterpret_cast<uintptr_t>(destination.data());
      s.length = static_cast<uint32_t>(destination.size());
      s.lkey = region->lkey();
      raw.channel->engine.submit(&s, 1);
      return false;
    }
    if (r.kind != static_cast<int32_t>(jrdma::EventKind::kChannelClosed)) return false;
    EXPECT_EQ(static_cast<int32_t>(jrdma::ClosedCause::kOperationFailed), r.a);
    EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, r.b) << "the READ with the forged key fails at the peer's HCA";
    EXPECT_EQ(static_cast<int32_t>(jrdma::OpKind::kTransferRead), r.c);
    return true;
  });
}

TEST(ChannelDevice, MalformedMessageIsAProtocolErrorNotTrusted) {
  RawChannel raw(21002);
  ASSERT_TRUE(raw.ok);
  // 16 bytes that claim a 1 MiB payload: the length field must not be trusted.
  const uint8_t garbage[16] = {1, 0, 0, 0, 0, 0, 0x10, 0};
  std::memcpy(raw.message, garbage, sizeof garbage);
  raw.send_raw(sizeof garbage);
  run_loop(raw.server, [&](const jrdma::EventRecord& r) {
    if (r.kind != static_cast<int32_t>(jrdma::EventKind::kChannelClosed)) return false;
    EXPECT_EQ(static_cast<int32_t>(jrdma::ClosedCause::kProtocolError), r.a);
    EXPECT_EQ(static_cast<int32_t>(jrdma::wire::DecodeStatus::kTooLong), r.b);
    EXPECT_EQ(raw.channel->key, static_cast<uint32_t>(r.key));
    return true;
  });
}

namespace {

// A client that never completes its connections: its own queue pair (not rdma_cm's), so the
// connect response waits for an rdma_establish that only comes when the test says so.
struct HalfOpenClient {
  rdma_event_channel* events = rdma_create_event_channel();
  rdma_cm_id* id = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_qp* qp = nullptr;

  // The event that answered: CONNECT_RESPONSE (accepted) or REJECTED (with the reason decoded).
  rdma_cm_event_type connect(int port, jrdma::wire::RejectReason* reason, uint32_t* detail) {
    if (rdma_create_id(events, &id, nullptr, RDMA_PS_TCP) != 0) return RDMA_CM_EVENT_ADDR_ERROR;
    sockaddr_in server = address(kServerIp, port);
    rdma_cm_event* event = nullptr;
    if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&server), 2000) != 0 ||
        rdma_get_cm_event(events, &event) != 0) {
      return RDMA_CM_EVENT_ADDR_ERROR;
    }
    rdma_ack_cm_event(event);
    if (rdma_resolve_route(id, 2000) != 0 || rdma_get_cm_event(events, &event) != 0) return RDMA_CM_EVENT_ROUTE_ERROR;
    rdma_ack_cm_event(event);
    pd = ibv_alloc_pd(id->verbs);
    cq = ibv_create_cq(id->verbs, 4, nullptr, nullptr, 0);
    ibv_qp_init_attr attr{};
    attr.send_cq = cq;
    attr.recv_cq = cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = attr.cap.max_recv_wr = attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
    qp = ibv_create_qp(pd, &attr);
    if (qp == nullptr) return RDMA_CM_EVENT_CONNECT_ERROR;
    uint8_t data[jrdma::wire::kHandshakeSize];
    jrdma::wire::encode_handshake(valid_handshake(), data);
    rdma_conn_param param{};
    param.private_data = data;
    param.private_data_len = sizeof data;
    param.qp_num = qp->qp_num;
    param.responder_resources = param.initiator_depth = 1;
    param.retry_count = 6;
    if (rdma_connect(id, &param) != 0 || rdma_get_cm_event(events, &event) != 0) return RDMA_CM_EVENT_CONNECT_ERROR;
    rdma_cm_event_type type = event->event;
    if (type == RDMA_CM_EVENT_REJECTED) {
      jrdma::wire::decode_reject(event->param.conn.private_data, event->param.conn.private_data_len, reason, detail);
    }
    rdma_ack_cm_event(event);
    return type;
  }

  ~HalfOpenClient() {
    if (id != nullptr) rdma_destroy_id(id);
    if (qp != nullptr) ibv_destroy_qp(qp);
    if (cq != nullptr) ibv_destroy_cq(cq);
    if (pd != nullptr) ibv_dealloc_pd(pd);
    rdma_destroy_event_channel(events);
  }
};

}  // namespace

TEST(ChannelDevice, ConnectionRequestsNeverCompletedAreBoundedPerListenerAndRejectedWithTheLimit) {
  jrdma::VerbsContext server(rxe0());
  jrdma::ChannelOptions options;
  options.engine.eager = 4096;
  options.engine.depth = 16;
  options.max_pending = 3;
  sockaddr_in bind = address(kServerIp, 21005);
  jrdma::VerbsListener* listener = server.listen(reinterpret_cast<sockaddr*>(&bind), options, 16);
  std::atomic<bool> stop{false};
  std::vector<jrdma::VerbsChannelEntry*> accepted;
  std::atomic<int> established{0};
  std::thread loop([&] {
    jrdma::EventRecord records[64];
    while (!stop) {
      int n = server.wait_events(records, 64, 50, jrdma::PollMode::kEvent);
      for (int i = 0; i < n; ++i) {
        if (records[i].kind == static_cast<int32_t>(jrdma::EventKind::kIncoming)) {
          accepted.push_back(reinterpret_cast<jrdma::VerbsChannelEntry*>(static_cast<uintptr_t>(records[i].c)));
        }
        if (records[i].kind == static_cast<int32_t>(jrdma::EventKind::kChannelOpen)) ++established;
      }
    }
  });
  std::vector<std::unique_ptr<HalfOpenClient>> clients;
  auto attempt = [&](jrdma::wire::RejectReason* reason, uint32_t* detail) {
    clients.push_back(std::make_unique<HalfOpenClient>());
    return clients.back()->connect(21005, reason, detail);
  };
  jrdma::wire::RejectReason reason = jrdma::wire::RejectReason::kNone;
  uint32_t detail = 0;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(RDMA_CM_EVENT_CONNECT_RESPONSE, attempt(&reason, &detail)) << "request " << i;
  for (int i = 0; i < 2; ++i) {
    reason = jrdma::wire::RejectReason::kNone;
    EXPECT_EQ(RDMA_CM_EVENT_REJECTED, attempt(&reason, &detail)) << "request " << 3 + i << " is over the limit";
    EXPECT_EQ(jrdma::wire::RejectReason::kTooManyPending, reason);
    EXPECT_EQ(3u, detail);
  }
  // One completes: its place is free again.
  ASSERT_EQ(0, rdma_establish(clients[0]->id));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (established == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();  // the loop thread reports it
  }
  EXPECT_EQ(RDMA_CM_EVENT_CONNECT_RESPONSE, attempt(&reason, &detail)) << "a place freed by an established channel";
  stop = true;
  loop.join();
  for (jrdma::VerbsChannelEntry* channel : accepted) server.destroy_channel(channel);
  server.close_listener(listener);
  jrdma::EventRecord records[64];
  server.wait_events(records, 64, 0, jrdma::PollMode::kEvent);  // runs the queued destroys and the close
  clients.clear();
}

// A raw verbs client that connects to a server holding a pre-shared key and never proves it: the
// server's queue pair grants no remote access until the proof, so an RDMA READ or WRITE with a
// valid rkey of the server's memory fails (remote invalid request on rxe) and moves no byte.
TEST(ChannelDevice, ARawPeerThatNeverProvesTheKeyReadsAndWritesNothingThroughAValidRkey) {
  jrdma::VerbsContext server(rxe0());
  jrdma::ChannelOptions options;
  options.engine.eager = 4096;
  options.engine.depth = 16;
  options.engine.psk = {'k', 'e', 'y'};
  int port = 21010;
  sockaddr_in bind = address(kServerIp, port);
  jrdma::VerbsListener* listener = server.listen(reinterpret_cast<sockaddr*>(&bind), options, 8);
  std::vector<uint8_t> secret(4096, 0x5a);
  auto region = server.register_memory(secret.data(), secret.size(),
                                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
  for (ibv_wr_opcode opcode : {IBV_WR_RDMA_READ, IBV_WR_RDMA_WRITE}) {
    RawClient client;
    jrdma::wire::Handshake hello = valid_handshake();
    hello.flags |= jrdma::wire::kFlagAuthenticate;
    std::atomic<bool> connected{false};
    std::thread peer([&] { connected = client.connect(port, hello); });
    jrdma::VerbsChannelEntry* channel = nullptr;
    run_loop(server, [&](const jrdma::EventRecord& r) {
      if (r.kind == static_cast<int32_t>(jrdma::EventKind::kIncoming)) {
        channel = reinterpret_cast<jrdma::VerbsChannelEntry*>(static_cast<uintptr_t>(r.c));
      }
      return channel != nullptr;
    });
    peer.join();
    ASSERT_TRUE(connected.load()) << "the server accepts with its nonce";
    std::vector<uint8_t> local(64, 0xee);
    ibv_mr* mr = ibv_reg_mr(client.pd, local.data(), local.size(), IBV_ACCESS_LOCAL_WRITE);
    ASSERT_NE(nullptr, mr);
    ibv_sge sge{reinterpret_cast<uintptr_t>(local.data()), 64, mr->lkey};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = opcode;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(secret.data());
    wr.wr.rdma.rkey = region->rkey();
    ibv_send_wr* bad = nullptr;
    ASSERT_EQ(0, ibv_post_send(client.id->qp, &wr, &bad));
    ibv_wc wc{};
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    int polled = 0;
    while (polled == 0 && std::chrono::steady_clock::now() < deadline) {
      polled = ibv_poll_cq(client.cq, 1, &wc);
      if (polled == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(1, polled) << "no completion within 20 s";
    // The queue pair grants no such operation: REM_INV_REQ_ERR (what rxe and the spec say for access
    // flags the responder's queue pair lacks), or REM_ACCESS_ERR on devices that report it so.
    EXPECT_TRUE(wc.status == IBV_WC_REM_INV_REQ_ERR || wc.status == IBV_WC_REM_ACCESS_ERR)
        << ibv_wc_status_str(wc.status);
    EXPECT_EQ(std::vector<uint8_t>(4096, 0x5a), secret) << "nothing written";
    if (opcode == IBV_WR_RDMA_READ) {
      EXPECT_EQ(std::vector<uint8_t>(64, 0xee), local) << "nothing read";
    }
    ibv_dereg_mr(mr);
    server.destroy_channel(channel);
  }
  server.close_listener(listener);
  jrdma::EventRecord records[8];
  server.wait_events(records, 8, 0, jrdma::PollMode::kEvent);
}
