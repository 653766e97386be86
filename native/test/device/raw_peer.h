// A hand-made peer speaking raw rdma_cm/verbs to a native context (inside the test-rxe VM): a
// minimal client with its own PD, CQ and QP, and a server context with one channel accepted from it,
// for tests that send what a jrdma peer never would.
#pragma once

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

#include "transports/verbs/verbs_context.h"
#include "wire/control_message.h"
#include "wire/handshake.h"
#include "wire/message_header.h"

namespace raw_peer {

inline constexpr const char* kServerIp = "10.77.0.1";

inline sockaddr_in address(const char* ip, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

// A minimal rdma_cm client with its own PD, CQ and QP.
struct RawClient {
  rdma_event_channel* events = rdma_create_event_channel();
  rdma_cm_id* id = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  rdma_cm_event_type last = RDMA_CM_EVENT_ADDR_ERROR;
  std::vector<uint8_t> last_private_data;

  bool next(rdma_cm_event_type expected) {
    rdma_cm_event* event = nullptr;
    if (rdma_get_cm_event(events, &event) != 0) return false;
    last = event->event;
    last_private_data.assign(static_cast<const uint8_t*>(event->param.conn.private_data),
                             static_cast<const uint8_t*>(event->param.conn.private_data) +
                                 (event->param.conn.private_data ? event->param.conn.private_data_len : 0));
    rdma_ack_cm_event(event);
    return last == expected;
  }

  bool connect(int port, const jrdma::wire::Handshake& handshake) {
    if (rdma_create_id(events, &id, nullptr, RDMA_PS_TCP) != 0) return false;
    sockaddr_in server = address(kServerIp, port);
    if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&server), 2000) != 0) return false;
    if (!next(RDMA_CM_EVENT_ADDR_RESOLVED)) return false;
    if (rdma_resolve_route(id, 2000) != 0 || !next(RDMA_CM_EVENT_ROUTE_RESOLVED)) return false;
    pd = ibv_alloc_pd(id->verbs);
    cq = ibv_create_cq(id->verbs, 16, nullptr, nullptr, 0);
    ibv_qp_init_attr attr{};
    attr.send_cq = cq;
    attr.recv_cq = cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 8;
    attr.cap.max_recv_wr = 8;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    if (rdma_create_qp(id, pd, &attr) != 0) return false;
    uint8_t data[jrdma::wire::kHandshakeSize];
    jrdma::wire::encode_handshake(handshake, data);
    rdma_conn_param param{};
    param.private_data = data;
    param.private_data_len = sizeof data;
    param.retry_count = 6;
    param.rnr_retry_count = 6;
    param.responder_resources = 1;  // the server may READ from us (rendezvous)
    param.initiator_depth = 1;
    if (rdma_connect(id, &param) != 0) return false;
    return next(RDMA_CM_EVENT_ESTABLISHED);
  }

  ~RawClient() {
    if (id != nullptr) {
      rdma_disconnect(id);
      if (id->qp != nullptr) rdma_destroy_qp(id);
      rdma_destroy_id(id);
    }
    if (cq != nullptr) ibv_destroy_cq(cq);
    if (pd != nullptr) ibv_dealloc_pd(pd);
    rdma_destroy_event_channel(events);
  }
};

inline jrdma::wire::Handshake valid_handshake() {
  jrdma::wire::Handshake h;
  h.credits = 16;
  h.eager = 4096;
  h.max_message = 1u << 30;
  h.rendezvous = 8;
  return h;
}

// Runs the server's loop until `on` says so for a record, or `until` (when given) says so after a
// turn, or 20 s pass; calls `on` for every record. `until` is for what another thread decides (a
// raw client's outcome): it may come after the last record.
inline void run_loop(jrdma::VerbsContext& server, const std::function<bool(const jrdma::EventRecord&)>& on,
                     const std::function<bool()>& until = nullptr) {
  jrdma::EventRecord records[64];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    int n = server.wait_events(records, 64, 100, jrdma::PollMode::kEvent);
    for (int i = 0; i < n; ++i) {
      if (on(records[i])) return;
    }
    if (until && until()) return;
  }
  FAIL() << "the expected event did not arrive within 20 s";
}

inline jrdma::ContextOptions rxe0() {
  jrdma::ContextOptions options;
  options.device_name = "rxe0";
  return options;
}

// A server context with one channel accepted from a raw client; the test sends raw messages.
struct RawChannel {
  explicit RawChannel(int port, uint32_t depth = 16) : server(rxe0()) {
    jrdma::ChannelOptions options;
    options.engine.eager = 4096;
    options.engine.depth = depth;
    options.engine.max_message = 1u << 20;
    sockaddr_in bind = address(kServerIp, port);
    listener = server.listen(reinterpret_cast<sockaddr*>(&bind), options, 8);
    std::atomic<bool> connected{false};
    std::thread peer([&] { connected = client.connect(port, valid_handshake()); });
    run_loop(server, [&](const jrdma::EventRecord& r) {
      if (r.kind == static_cast<int32_t>(jrdma::EventKind::kIncoming)) {
        channel = reinterpret_cast<jrdma::VerbsChannelEntry*>(static_cast<uintptr_t>(r.c));
      }
      return r.kind == static_cast<int32_t>(jrdma::EventKind::kChannelOpen);
    });
    peer.join();
    ok = connected.load() && channel != nullptr;
  }

  // Sends a rendezvous START (message id 0) as the raw client.
  void send_start(uint64_t address, uint32_t rkey, uint64_t length) {
    jrdma::wire::encode_header(
        {jrdma::wire::MessageType::kRendezvousStart, 0, 0, static_cast<uint32_t>(jrdma::wire::kControlPayloadSize), 0},
        message);
    jrdma::wire::encode_start({address, rkey, length}, message + jrdma::wire::kHeaderSize);
    send_raw(sizeof message);
  }

  // Sends the first `length` bytes of `message` as one SEND of the raw client (its completion
  // stays in the client's CQ: await_send() takes it).
  void send_raw(uint32_t length) {
    if (message_mr == nullptr) message_mr = ibv_reg_mr(client.pd, message, sizeof message, IBV_ACCESS_LOCAL_WRITE);
    ASSERT_NE(nullptr, message_mr);
    ibv_sge sge{reinterpret_cast<uintptr_t>(message), length, message_mr->lkey};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    ibv_send_wr* bad = nullptr;
    ASSERT_EQ(0, ibv_post_send(client.id->qp, &wr, &bad));
  }

  // The next completion of the raw client's sends (2 s at most): its status, or -1 for none.
  int await_send() {
    ibv_wc wc{};
    for (int i = 0; i < 2000; ++i) {
      if (ibv_poll_cq(client.cq, 1, &wc) == 1) return wc.status;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return -1;
  }

  ~RawChannel() {
    if (channel != nullptr) server.destroy_channel(channel);
    server.close_listener(listener);
    jrdma::EventRecord records[8];
    server.wait_events(records, 8, 0, jrdma::PollMode::kEvent);  // runs the queued destroy and close
    ibv_wc wc;
    for (int i = 0; i < 100 && ibv_poll_cq(client.cq, 1, &wc) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (message_mr != nullptr) ibv_dereg_mr(message_mr);
  }

  jrdma::VerbsContext server;
  jrdma::VerbsListener* listener = nullptr;
  RawClient client;
  jrdma::VerbsChannelEntry* channel = nullptr;
  bool ok = false;
  uint8_t message[jrdma::wire::kHeaderSize + jrdma::wire::kControlPayloadSize] = {};
  ibv_mr* message_mr = nullptr;
};

}  // namespace raw_peer
