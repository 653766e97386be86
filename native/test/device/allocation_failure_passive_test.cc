// Allocation failure on the loop thread (inside the test-rxe VM, under ASan): this executable
// replaces operator new, and the test makes the k-th allocation of the server's loop fail while it
// accepts a connection, opens the channel, sees the peer leave and destroys the channel — for every
// k until a cycle makes fewer allocations. Whatever fails, the loop goes on: no exception leaves
// wait_events, the client ends connected or refused within a bound, every channel reported
// incoming is reported closed, and a last connection with nothing failing works. LeakSanitizer
// checks that nothing a failure interrupted was leaked.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test/device/allocation_failure.h"
#include "transports/verbs/verbs_context.h"
#include "wire/handshake.h"

using namespace jrdma::test;

namespace {

constexpr int kPort = 21020;

// A raw rdma_cm client (its own event channel, PD, CQ and QP): connects with a valid handshake and
// tells how that ended.
struct Client {
  rdma_event_channel* events = rdma_create_event_channel();
  rdma_cm_id* id = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;

  // The next event within 30 s; a missing answer reads as TIMEWAIT_EXIT (never expected here).
  rdma_cm_event_type next() {
    pollfd ready{events->fd, POLLIN, 0};
    if (::poll(&ready, 1, 30000) != 1) return RDMA_CM_EVENT_TIMEWAIT_EXIT;
    rdma_cm_event* event = nullptr;
    if (rdma_get_cm_event(events, &event) != 0) return RDMA_CM_EVENT_ADDR_ERROR;
    rdma_cm_event_type type = event->event;
    rdma_ack_cm_event(event);
    return type;
  }

  // ESTABLISHED, REJECTED, UNREACHABLE, CONNECT_ERROR...: whatever ended the attempt.
  rdma_cm_event_type connect() {
    if (rdma_create_id(events, &id, nullptr, RDMA_PS_TCP) != 0) return RDMA_CM_EVENT_ADDR_ERROR;
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(kPort);
    inet_pton(AF_INET, kServerIp, &server.sin_addr);
    if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&server), 2000) != 0)
      return RDMA_CM_EVENT_ADDR_ERROR;
    rdma_cm_event_type type = next();
    if (type != RDMA_CM_EVENT_ADDR_RESOLVED) return type;
    if (rdma_resolve_route(id, 2000) != 0) return RDMA_CM_EVENT_ROUTE_ERROR;
    type = next();
    if (type != RDMA_CM_EVENT_ROUTE_RESOLVED) return type;
    pd = ibv_alloc_pd(id->verbs);
    cq = ibv_create_cq(id->verbs, 16, nullptr, nullptr, 0);
    ibv_qp_init_attr attr{};
    attr.send_cq = attr.recv_cq = cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = attr.cap.max_recv_wr = 8;
    attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
    if (rdma_create_qp(id, pd, &attr) != 0) return RDMA_CM_EVENT_CONNECT_ERROR;
    jrdma::wire::Handshake handshake;
    handshake.credits = 16;
    handshake.eager = 4096;
    handshake.max_message = 1u << 20;
    handshake.rendezvous = 8;
    uint8_t data[jrdma::wire::kHandshakeSize];
    jrdma::wire::encode_handshake(handshake, data);
    rdma_conn_param param{};
    param.private_data = data;
    param.private_data_len = sizeof data;
    param.retry_count = 6;
    param.rnr_retry_count = 6;
    param.responder_resources = param.initiator_depth = 1;
    if (rdma_connect(id, &param) != 0) return RDMA_CM_EVENT_CONNECT_ERROR;
    return next();
  }

  ~Client() {
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

// The server's side of one cycle, with the k-th allocation of its loop failing (k < 0: none).
class Server {
 public:
  Server() : context_(device("rxe0")) { listener_ = listen_on(context_, kPort); }

  ~Server() {
    countdown_ = -1;
    context_.close_listener(listener_);
    turn(0);  // runs the queued close
  }

  // One wait of the loop with the armed countdown; an exception leaving it is a failure.
  void turn(int timeout_ms) {
    fail_countdown = countdown_;
    int n = 0;
    try {
      n = context_.wait_events(records_, 64, timeout_ms, jrdma::PollMode::kEvent);
    } catch (const std::exception& e) {
      fail_countdown = -1;
      ADD_FAILURE() << "wait_events threw: " << e.what() << " (allocation " << index_ << ")";
    }
    countdown_ = fail_countdown;
    fail_countdown = -1;
    for (int i = 0; i < n; ++i) see(records_[i]);
  }

  // Arms the countdown: the k-th allocation of the loop from now fails (k < 0: none).
  void arm(long k) {
    index_ = k;
    countdown_ = k;
  }
  // The armed allocation has not been reached (the cycle made fewer allocations).
  bool armed_but_not_reached() const { return countdown_ >= 0; }

  void destroy_channel() {
    if (channel_ != nullptr) context_.destroy_channel(channel_);
    channel_ = nullptr;
    turn(0);  // runs the queued destroy
  }

  bool incoming = false;
  bool opened = false;
  bool closed = false;
  bool rejected = false;

  void reset() { incoming = opened = closed = rejected = false; }

 private:
  void see(const jrdma::EventRecord& r) {
    switch (static_cast<jrdma::EventKind>(r.kind)) {
      case jrdma::EventKind::kIncoming:
        incoming = true;
        channel_ = reinterpret_cast<jrdma::VerbsChannelEntry*>(static_cast<uintptr_t>(r.c));
        break;
      case jrdma::EventKind::kChannelOpen:
        opened = true;
        break;
      case jrdma::EventKind::kChannelClosed:
        closed = true;
        break;
      case jrdma::EventKind::kIncomingRejected:
        rejected = true;
        break;
      default:
        break;
    }
  }

  jrdma::VerbsContext context_;
  jrdma::VerbsListener* listener_ = nullptr;
  jrdma::VerbsChannelEntry* channel_ = nullptr;
  jrdma::EventRecord records_[64];
  long countdown_ = -1;
  long index_ = -1;
};

// Runs the server's loop until `done` or `seconds` pass; false on timeout.
template <typename Done>
bool serve_until(Server& server, Done done, int seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    server.turn(20);
  }
  return true;
}

// One cycle: a client connects, then leaves; the server destroys what it accepted.
// Returns how the client's attempt ended.
rdma_cm_event_type cycle(Server& server, long failing_allocation) {
  step_allocation = failing_allocation;
  step = "connect";
  server.reset();
  server.arm(failing_allocation);
  std::atomic<bool> client_done{false};
  std::atomic<int> outcome{-1};
  auto client = std::make_unique<Client>();
  std::thread peer([&] {
    outcome = client->connect();
    client_done = true;
  });
  bool answered = serve_until(
      server, [&] { return client_done.load(); }, 60);
  peer.join();  // the client's own timeouts bound it
  EXPECT_TRUE(answered) << "allocation " << failing_allocation << ": the client got no answer within 60 s";
  if (outcome == RDMA_CM_EVENT_ESTABLISHED) {
    EXPECT_TRUE(serve_until(
        server, [&] { return server.opened || server.closed; }, 20))
        << "allocation " << failing_allocation << ": an established connection was neither opened nor closed";
  }
  step = "client leaves";
  client.reset();  // disconnects
  if (server.incoming) {
    EXPECT_TRUE(serve_until(
        server, [&] { return server.closed; }, 30))
        << "allocation " << failing_allocation << ": a channel reported incoming was never reported closed";
  }
  step = "destroy the channel";
  server.destroy_channel();
  return static_cast<rdma_cm_event_type>(outcome.load());
}

// Fails every allocation of a cycle once in turn; returns how many cycles had one fail.
long fail_each_allocation(Server& server) {
  long injected = 0;
  for (long k = 0; k < 2000; ++k) {
    rdma_cm_event_type outcome = cycle(server, k);
    if (server.armed_but_not_reached()) break;  // every allocation of a cycle has failed once
    ++injected;
    EXPECT_TRUE(outcome == RDMA_CM_EVENT_ESTABLISHED || outcome == RDMA_CM_EVENT_REJECTED)
        << "allocation " << k << ": the client's attempt ended with "
        << (outcome == RDMA_CM_EVENT_TIMEWAIT_EXIT ? "no answer within 30 s" : rdma_event_str(outcome));
    if (::testing::Test::HasFailure()) break;  // the first broken promise is the one to read
  }
  return injected;
}

}  // namespace

TEST(AllocationFailureDevice, TheLoopSurvivesAFailedAllocationAnywhereInAChannelsLife) {
  with_watchdog(600, [] {
    Server server;
    ASSERT_EQ(RDMA_CM_EVENT_ESTABLISHED, cycle(server, -1)) << "a cycle with nothing failing connects";
    long injected = fail_each_allocation(server);
    EXPECT_GT(injected, 10) << "a cycle allocates on the loop thread";
    std::printf("allocation failures injected: %ld (one per cycle: %ld)\n", failures, injected);
    EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, cycle(server, -1)) << "after every failure, a connection works";
    step = "close the context";
  });
}
