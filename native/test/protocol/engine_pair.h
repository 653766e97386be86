// Two channel engines joined by FakeTransports, with a model of what Java sees: every operation's
// report (exactly once, in submission order), every delivered message (in order, with its bytes),
// and the end of the channel. Checks the engine's promises as records arrive.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "protocol/channel_engine.h"
#include "test/protocol/fake_transport.h"

namespace jrdma::test {

class RecordingSink : public EventSink {
 public:
  void emit(const EventRecord& record) override { records.push_back(record); }
  std::vector<EventRecord> records;
};

struct ModelOp {
  OpKind kind;
  std::vector<uint8_t> payload;  // stays put until the operation is reported (the registered buffer)
  enum { kPending, kDone, kFailed } state = kPending;
  int status = 0;
  int64_t result = 0;
};

struct Side {
  Side(uint32_t key, const EngineOptions& options)
      : memory(ChannelMemoryLayout::of(options.depth, options.eager).size),
        transport(memory.data(), options.eager),
        engine(key, options, ChannelMemory{memory.data(), memory.size()}, sink),
        exposed(4096, 0) {}

  std::vector<uint8_t> memory;
  RecordingSink sink;
  FakeTransport transport;
  ChannelEngine engine;
  std::vector<uint8_t> exposed;  // memory the peer writes, reads and adds to
  std::map<uint64_t, ModelOp> ops;
  uint64_t next_seq = 0;
  uint64_t data_sent = 0;      // DATA messages submitted (their index is in the payload)
  uint64_t data_received = 0;  // DATA messages delivered from the peer
  uint32_t immediates_sent = 0;
  uint32_t immediates_received = 0;
  std::vector<uint32_t> held;  // receive slots the "application" holds
  bool open = false;
  bool closed = false;
  int closed_cause = 0;
  int closed_code = 0;
  int64_t closed_detail = 0;
  std::vector<int64_t> fetch_results;
  std::string violation;  // the first broken promise, if any
  // Rendezvous: what "Java" allocated for transfers, the requests not answered yet, the receives
  // it posted (by seq, in posting order).
  std::map<uint64_t, std::vector<uint8_t>> transfer_buffers;
  std::vector<std::pair<uint64_t, uint64_t>> needs;  // {transfer id, length}
  std::map<uint64_t, std::vector<uint8_t>> receives;
  std::deque<uint64_t> posted;
  uint64_t large_received = 0;
  uint64_t received_into_posted = 0;
  std::vector<EventRecord> agent;  // kAgentRequest, kAgentReply, kAgentRelease and kToken, in order

  uint64_t pending() const {
    uint64_t n = 0;
    for (const auto& [seq, op] : ops) n += op.state == ModelOp::kPending;
    return n;
  }
};

class EnginePair {
 public:
  explicit EnginePair(EngineOptions options = {}, uint32_t seed = 1, uint64_t budget_bytes = 0)
      : EnginePair(options, options, false, seed, budget_bytes) {}

  // a is the client, b the server; with `authenticate` both prove their pre-shared keys (options.psk)
  // before the channel opens (deliver the AUTH messages with settle()).
  EnginePair(const EngineOptions& a_options, const EngineOptions& b_options, bool authenticate, uint32_t seed = 1,
             uint64_t budget_bytes = 0, uint8_t nonce_byte = 9)
      : budget(budget_bytes > 0 ? std::make_unique<ReceiveBudget>(budget_bytes) : nullptr),
        a(1, with_budget(a_options, budget.get())),
        b(2, with_budget(b_options, budget.get())),
        rng(seed) {
    a.transport.connect(&b.transport);
    b.transport.connect(&a.transport);
    a.engine.attach(&a.transport);
    b.engine.attach(&b.transport);
    a.engine.set_peer(b.engine.local_handshake());
    b.engine.set_peer(a.engine.local_handshake());
    if (authenticate) {
      uint8_t server_nonce[wire::kNonceSize] = {nonce_byte, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
      a.engine.authenticate(true, server_nonce);
      b.engine.authenticate(false, server_nonce);
    }
    b.engine.open();
    a.engine.open();
    process(a, b);
    process(b, a);
  }

  static EngineOptions with_budget(EngineOptions options, ReceiveBudget* shared) {
    options.budget = shared;
    return options;
  }

  Side& peer_of(Side& s) { return &s == &a ? b : a; }

  // "Java" answers a transfer's request for a buffer (allocates exactly its length).
  void answer_need(Side& s, std::size_t index) {
    auto [id, length] = s.needs[index];
    s.needs.erase(s.needs.begin() + static_cast<std::ptrdiff_t>(index));
    std::vector<uint8_t>& buffer = s.transfer_buffers[id];
    buffer.assign(length, 0xEE);
    Submission sub{};
    sub.kind = static_cast<uint8_t>(OpKind::kTransferBuffer);
    sub.compare_add = id;
    sub.local_address = reinterpret_cast<uintptr_t>(buffer.data());
    sub.length = static_cast<uint32_t>(length);
    sub.lkey = 0x99;
    s.engine.submit(&sub, 1);
  }

  // "Java" posts a receive of `length` bytes.
  void post_receive(Side& s, uint32_t length) {
    Submission sub{};
    sub.kind = static_cast<uint8_t>(OpKind::kReceive);
    sub.seq = s.next_seq++;
    std::vector<uint8_t>& buffer = s.receives[sub.seq];
    buffer.assign(length, 0xDD);
    s.posted.push_back(sub.seq);
    sub.local_address = reinterpret_cast<uintptr_t>(buffer.data());
    sub.length = length;
    sub.lkey = 0x98;
    s.engine.submit(&sub, 1);
  }

  void retry_budget() {
    if (budget == nullptr) return;
    for (uint32_t key : budget->waiters_to_retry()) (key == 1 ? a : b).engine.retry_budget();
  }

  // Java's side of a submission: the model op, then one Submission record.
  Submission make(Side& s, OpKind kind, uint32_t length = 0) {
    Submission sub{};
    sub.kind = static_cast<uint8_t>(kind);
    sub.seq = s.next_seq++;
    ModelOp op{kind, {}};
    Side& p = peer_of(s);
    switch (kind) {
      case OpKind::kSend:
        op.payload.resize(std::max<uint32_t>(length, 8));
        for (std::size_t i = 0; i < op.payload.size(); ++i) op.payload[i] = static_cast<uint8_t>(s.data_sent * 31 + i);
        std::memcpy(op.payload.data(), &s.data_sent, 8);
        ++s.data_sent;
        break;
      case OpKind::kWrite:
      case OpKind::kWriteWithImmediate:
      case OpKind::kRead:
        op.payload.assign(length, static_cast<uint8_t>(sub.seq));
        sub.remote_address = reinterpret_cast<uintptr_t>(p.exposed.data() + 8);
        sub.rkey = 7;
        sub.immediate = kind == OpKind::kWriteWithImmediate ? s.immediates_sent++ : 0;
        break;
      case OpKind::kFetchAndAdd:
        sub.remote_address = reinterpret_cast<uintptr_t>(p.exposed.data());
        sub.compare_add = 1;
        break;
      default:
        break;
    }
    auto& stored = s.ops.emplace(sub.seq, std::move(op)).first->second;
    sub.local_address = reinterpret_cast<uintptr_t>(stored.payload.data());
    sub.length = static_cast<uint32_t>(stored.payload.size());
    if (kind == OpKind::kFetchAndAdd) sub.length = 8;
    return sub;
  }

  static Submission release(uint32_t slot) {
    Submission sub{};
    sub.kind = static_cast<uint8_t>(OpKind::kReleaseReceive);
    sub.receive_slot = slot;
    return sub;
  }

  // Reads the records the side's engine emitted and checks them against the model.
  void process(Side& s, Side& /*from*/) {
    auto fail = [&](const std::string& what) {
      if (s.violation.empty()) s.violation = what;
    };
    // Every message carries its index (the sender's count) and a pattern: in order and intact.
    auto check_message = [&](const uint8_t* payload, uint32_t length) {
      uint64_t index;
      std::memcpy(&index, payload, 8);
      if (index != s.data_received) {
        fail("message " + std::to_string(index) + " arrived, expected " + std::to_string(s.data_received));
      }
      for (uint32_t i = 8; i < length; ++i) {
        if (payload[i] != static_cast<uint8_t>(index * 31 + i)) {
          fail("message " + std::to_string(index) + " has a wrong byte at " + std::to_string(i));
          break;
        }
      }
      ++s.data_received;
    };
    for (const EventRecord& r : s.sink.records) {
      if (s.closed) fail("a record after kChannelClosed (kind " + std::to_string(r.kind) + ")");
      switch (static_cast<EventKind>(r.kind)) {
        case EventKind::kChannelOpen:
          if (s.open) fail("kChannelOpen twice");
          s.open = true;
          break;
        case EventKind::kOpDone: {
          auto it = s.ops.find(static_cast<uint64_t>(r.c));
          if (it == s.ops.end() || it->second.state != ModelOp::kPending) {
            fail("kOpDone for seq " + std::to_string(r.c) + " that is not pending");
            break;
          }
          for (const auto& [seq, op] : s.ops) {
            if (seq < static_cast<uint64_t>(r.c) && op.state == ModelOp::kPending) {
              fail("seq " + std::to_string(r.c) + " completed before the earlier seq " + std::to_string(seq));
              break;
            }
          }
          it->second.state = r.a == kStatusSuccess ? ModelOp::kDone : ModelOp::kFailed;
          it->second.status = r.a;
          it->second.result = r.d;
          if (r.a == kStatusSuccess && it->second.kind == OpKind::kFetchAndAdd) s.fetch_results.push_back(r.d);
          break;
        }
        case EventKind::kOpsUnposted:
          for (auto& [seq, op] : s.ops) {
            if (seq >= static_cast<uint64_t>(r.c) && op.state == ModelOp::kPending) op.state = ModelOp::kFailed;
          }
          break;
        case EventKind::kMessage: {
          uint32_t slot = static_cast<uint32_t>(r.a);
          check_message(s.transport.ring_slot(slot) + wire::kHeaderSize, static_cast<uint32_t>(r.b));
          s.held.push_back(slot);
          break;
        }
        case EventKind::kTransferNeedsBuffer:
          if (static_cast<uint64_t>(r.d) > s.engine.local_handshake().max_message) fail("a buffer beyond max_message");
          s.needs.emplace_back(static_cast<uint64_t>(r.c), static_cast<uint64_t>(r.d));
          break;
        case EventKind::kLargeMessage: {
          auto it = s.transfer_buffers.find(static_cast<uint64_t>(r.c));
          if (it == s.transfer_buffers.end() || it->second.size() != static_cast<std::size_t>(r.b)) {
            fail("kLargeMessage " + std::to_string(r.c) + " without its buffer");
            break;
          }
          check_message(it->second.data(), static_cast<uint32_t>(r.b));
          s.transfer_buffers.erase(it);
          ++s.large_received;
          break;
        }
        case EventKind::kReceiveDone: {
          if (s.posted.empty() || s.posted.front() != static_cast<uint64_t>(r.c)) {
            fail("kReceiveDone for seq " + std::to_string(r.c) + " out of posting order");
            break;
          }
          s.posted.pop_front();
          if (r.a == static_cast<int32_t>(ReceiveStatus::kReceived)) {
            check_message(s.receives[static_cast<uint64_t>(r.c)].data(), static_cast<uint32_t>(r.b));
            ++s.received_into_posted;
          }
          s.receives.erase(static_cast<uint64_t>(r.c));
          break;
        }
        case EventKind::kImmediate:
          if (static_cast<uint32_t>(r.b) != s.immediates_received) fail("immediate out of order");
          ++s.immediates_received;
          s.held.push_back(static_cast<uint32_t>(r.a));
          break;
        case EventKind::kAgentRequest:
        case EventKind::kAgentReply:
        case EventKind::kAgentRelease:
        case EventKind::kToken:
          s.agent.push_back(r);
          break;
        case EventKind::kChannelClosed:
          s.closed = true;
          s.closed_cause = r.a;
          s.closed_code = r.b;
          s.closed_detail = r.c;
          for (auto& [seq, op] : s.ops) {
            if (op.state == ModelOp::kPending) op.state = ModelOp::kFailed;
          }
          break;
        default:
          fail("unexpected record kind " + std::to_string(r.kind));
      }
    }
    s.sink.records.clear();
  }

  // One random step of the two "event loops" and the "applications".
  void step(bool submit_allowed = true) {
    Side& s = rng() % 2 == 0 ? a : b;
    Side& p = peer_of(s);
    switch (rng() % 10) {
      case 0:
      case 1: {
        if (!submit_allowed || !s.open || s.closed) break;
        Submission batch[3];
        int n = 1 + static_cast<int>(rng() % 3);
        for (int i = 0; i < n; ++i) {
          static const OpKind kinds[] = {
              OpKind::kSend, OpKind::kSend,       OpKind::kSend, OpKind::kWrite, OpKind::kWriteWithImmediate,
              OpKind::kRead, OpKind::kFetchAndAdd};
          OpKind kind = kinds[rng() % 7];
          uint32_t eager = s.engine.options().eager;
          // One send in four is larger than a receive buffer: a rendezvous.
          uint32_t length = kind == OpKind::kSend && rng() % 4 == 0 ? eager + static_cast<uint32_t>(rng() % (3 * eager))
                                                                    : 8 + static_cast<uint32_t>(rng() % (eager - 24));
          batch[i] = make(s, kind, length);
          if (kind != OpKind::kSend) batch[i].length = std::min<uint32_t>(batch[i].length, 64);
        }
        s.engine.submit(batch, n);
        break;
      }
      case 2:
      case 3: {
        std::string error = s.transport.execute_one();
        if (!error.empty() && s.violation.empty()) s.violation = error;
        break;
      }
      case 4:
      case 5:
        s.transport.deliver_one(s.engine);
        break;
      case 6:
        s.engine.flush();
        break;
      case 7:
        if (!s.held.empty()) {
          std::size_t i = rng() % s.held.size();
          Submission r = release(s.held[i]);
          s.held.erase(s.held.begin() + static_cast<std::ptrdiff_t>(i));
          s.engine.submit(&r, 1);
        }
        break;
      case 8:
        if (!s.needs.empty() && !s.closed) answer_need(s, rng() % s.needs.size());
        break;
      case 9:
        // Now and then the application posts a receive large enough for any message of the test.
        if (s.open && !s.closed && rng() % 4 == 0) post_receive(s, 4 * s.engine.options().eager);
        break;
    }
    retry_budget();
    // A side that asked to disconnect takes the connection down for both (as rdma_disconnect does).
    if ((s.transport.disconnect_requested || p.transport.disconnect_requested) && !down) {
      down = true;
      a.transport.flush_all();
      b.transport.flush_all();
    }
    process(a, b);
    process(b, a);
  }

  // Runs both sides until nothing is left to do; the peer of a closed side learns it.
  void settle() {
    for (int round = 0; round < 100000; ++round) {
      bool busy = false;
      for (Side* s : {&a, &b}) {
        s->engine.flush();
        while (s->transport.pending_sends() > 0) {
          std::string error = s->transport.execute_one();
          if (!error.empty() && s->violation.empty()) s->violation = error;
          busy = true;
        }
        while (s->transport.deliver_one(s->engine)) busy = true;
        while (!s->needs.empty() && !s->closed) {
          answer_need(*s, 0);
          busy = true;
        }
        if (!s->held.empty()) {
          std::vector<Submission> releases;
          for (uint32_t slot : s->held) releases.push_back(release(slot));
          s->held.clear();
          s->engine.submit(releases.data(), static_cast<int>(releases.size()));
          busy = true;
        }
      }
      if (down) {
        for (Side* s : {&a, &b}) {
          if (!s->closed && s->engine.state() != ChannelEngine::State::kClosing) {
            s->engine.abort(ClosedCause::kPeerDisconnected);
          }
        }
      } else if ((a.transport.disconnect_requested || b.transport.disconnect_requested)) {
        down = true;
        a.transport.flush_all();
        b.transport.flush_all();
        busy = true;
      }
      retry_budget();
      process(a, b);
      process(b, a);
      if (!busy) return;
    }
    ADD_FAILURE() << "the pair did not settle";
  }

  std::unique_ptr<ReceiveBudget> budget;  // shared by both sides, as a context's is by its channels
  Side a;
  Side b;
  std::mt19937 rng;
  bool down = false;
};

}  // namespace jrdma::test
