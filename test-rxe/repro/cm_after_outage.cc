// Repro (no jrdma): after a send into a down link fails and the id is disconnected during the outage,
// new rdma_cm connections over that link time out (test-rxe/repro/run-cm-after-outage, docs/testing.md).
// Modes: "send" (EARLY=1: disconnect during the outage), "idle" (no send in the outage), "plain" (connect once).
#include <arpa/inet.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <atomic>

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double t0;
#define LOG(...) do { std::printf("[%7.3f] ", now() - t0); std::printf(__VA_ARGS__); std::printf("\n"); std::fflush(stdout); } while (0)

static rdma_cm_event_type wait_event(rdma_event_channel* ch, int ms, rdma_cm_id** id = nullptr, rdma_cm_event** keep = nullptr) {
  pollfd p{ch->fd, POLLIN, 0};
  if (poll(&p, 1, ms) != 1) return (rdma_cm_event_type)-1;
  rdma_cm_event* e;
  if (rdma_get_cm_event(ch, &e)) return (rdma_cm_event_type)-2;
  rdma_cm_event_type t = e->event;
  if (id) *id = e->id;
  LOG("event %s status %d", rdma_event_str(t), e->status);
  if (keep) *keep = e; else rdma_ack_cm_event(e);
  return t;
}

static sockaddr_in addr(const char* ip, int port) { sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(port); inet_pton(AF_INET, ip, &a.sin_addr); return a; }

static char buf[4096];

struct Conn { rdma_event_channel* ch; rdma_cm_id* id; ibv_mr* mr; };

static bool client_connect(Conn& c, int port, int timeout_ms) {
  c.ch = rdma_create_event_channel();
  rdma_create_id(c.ch, &c.id, nullptr, RDMA_PS_TCP);
  sockaddr_in src = addr("10.77.0.2", 0), dst = addr("10.77.0.1", port);
  if (rdma_resolve_addr(c.id, (sockaddr*)&src, (sockaddr*)&dst, 2000)) { LOG("resolve_addr errno %d", errno); return false; }
  if (wait_event(c.ch, 5000) != RDMA_CM_EVENT_ADDR_RESOLVED) return false;
  if (rdma_resolve_route(c.id, 2000)) return false;
  if (wait_event(c.ch, 5000) != RDMA_CM_EVENT_ROUTE_RESOLVED) return false;
  ibv_qp_init_attr attr{}; attr.qp_type = IBV_QPT_RC; attr.cap.max_send_wr = attr.cap.max_recv_wr = 8; attr.cap.max_send_sge = attr.cap.max_recv_sge = 1; attr.sq_sig_all = 1;
  if (rdma_create_qp(c.id, nullptr, &attr)) { LOG("create_qp errno %d", errno); return false; }
  c.mr = rdma_reg_msgs(c.id, buf, sizeof buf);
  rdma_conn_param p{}; p.retry_count = 6; p.rnr_retry_count = 6; p.responder_resources = p.initiator_depth = 1;
  if (rdma_connect(c.id, &p)) return false;
  return wait_event(c.ch, timeout_ms) == RDMA_CM_EVENT_ESTABLISHED;
}

int main(int argc, char** argv) {
  t0 = now();
  int port = 23000;
  std::atomic<bool> stop{false};
  // Server on rxe0: accepts every request, posts receives, acks events.
  std::thread server([&] {
    rdma_event_channel* ch = rdma_create_event_channel();
    rdma_cm_id* listen; rdma_create_id(ch, &listen, nullptr, RDMA_PS_TCP);
    sockaddr_in a = addr("10.77.0.1", port);
    rdma_bind_addr(listen, (sockaddr*)&a); rdma_listen(listen, 8);
    static char sbuf[8][4096];
    int n = 0;
    while (!stop) {
      rdma_cm_id* id = nullptr; rdma_cm_event* e = nullptr;
      pollfd p{ch->fd, POLLIN, 0};
      if (poll(&p, 1, 100) != 1) continue;
      rdma_get_cm_event(ch, &e);
      std::printf("[%7.3f] server: %s status %d\n", now() - t0, rdma_event_str(e->event), e->status); std::fflush(stdout);
      if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
        id = e->id;
        ibv_qp_init_attr attr{}; attr.qp_type = IBV_QPT_RC; attr.cap.max_send_wr = attr.cap.max_recv_wr = 8; attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
        rdma_create_qp(id, nullptr, &attr);
        ibv_mr* mr = rdma_reg_msgs(id, sbuf[n % 8], 4096);
        for (int i = 0; i < 4; i++) rdma_post_recv(id, nullptr, sbuf[n % 8], 1024, mr);
        n++;
        rdma_conn_param cp{}; cp.responder_resources = cp.initiator_depth = 1; cp.rnr_retry_count = 6;
        rdma_accept(id, &cp);
      }
      rdma_ack_cm_event(e);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  if (argc > 1 && std::strcmp(argv[1], "plain") == 0) {  // a fresh process: connect once, nothing else
    Conn c;
    double start = now();
    bool ok = client_connect(c, port, 20000);
    LOG("fresh process connect: %s after %.1f s", ok ? "ESTABLISHED" : "FAILED", now() - start);
    stop = true;
    server.join();
    return ok ? 0 : 1;
  }
  Conn first;
  bool connected = client_connect(first, port, 10000);
  LOG("first connect: %d", connected);
  ibv_wc wc;
  rdma_post_send(first.id, nullptr, buf, 64, first.mr, IBV_SEND_SIGNALED);
  int got = rdma_get_send_comp(first.id, &wc);
  LOG("first send: %d status %s", got, ibv_wc_status_str(wc.status));
  LOG("link down: %d", system("ip link set veth1 down"));
  std::this_thread::sleep_for(std::chrono::seconds(2));
  bool send_in_outage = argc < 2 || std::strcmp(argv[1], "idle") != 0;
  if (send_in_outage) {
    rdma_post_send(first.id, nullptr, buf, 64, first.mr, IBV_SEND_SIGNALED);
    got = rdma_get_send_comp(first.id, &wc);
    LOG("send in outage: %d status %s", got, ibv_wc_status_str(wc.status));
  }
  bool early = std::getenv("EARLY") != nullptr;
  if (send_in_outage && early) {
    LOG("disconnect old during the outage: %d", rdma_disconnect(first.id));
    rdma_destroy_qp(first.id);
    rdma_dereg_mr(first.mr);
    rdma_destroy_id(first.id);
    LOG("old destroyed");
  }
  LOG("link up: %d", system("ip link set veth1 up"));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  if (send_in_outage && !early) {
    LOG("disconnect old: %d", rdma_disconnect(first.id));
    rdma_destroy_qp(first.id);
    rdma_dereg_mr(first.mr);
    rdma_destroy_id(first.id);
    LOG("old destroyed");
  }
  for (int attempt = 1; attempt <= 2; attempt++) {
    Conn next;
    double start = now();
    bool ok = client_connect(next, port, 20000);
    LOG("reconnect attempt %d: %s after %.1f s", attempt, ok ? "ESTABLISHED" : "FAILED", now() - start);
    if (ok) break;
  }
  stop = true;
  server.join();
  return 0;
}
