// The channel protocol, in one place (docs/protocol.md): credits (grant, return, keep one in
// reserve), message ids and types, the send window (slots, posting order, selective signaling),
// the receive ring, explicit credit messages, receives the application posts, and close; it carries
// the messages of the rendezvous transfers (protocol/rendezvous_transfers.h), the remote-memory
// agent (protocol/remote_memory_agent.h) and the proof exchange (protocol/authentication.h), which
// are types of their own. The receive side lives in channel_engine_receive.cc, what the engine does
// for the rendezvous transfers in channel_engine_rendezvous.cc. It knows no verbs and no JNI: it drives a
// ChannelTransport below it and reports to an EventSink above it (records for Java), so the unit
// tests run it over an in-memory transport.
//
// Threads: submit(), close(), abort() and describe() come from any thread; set-up, the on_*
// transport events, flush() and tick() from the context's loop thread. One mutex per engine.
// Every operation Java submits is reported exactly once: kOpDone, or kOpsUnposted, or the final
// kChannelClosed (which fails everything not reported before it).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/authentication.h"
#include "protocol/channel_counters.h"
#include "protocol/delivery_queue.h"
#include "protocol/event_record.h"
#include "protocol/keepalive.h"
#include "protocol/operation_watch.h"
#include "protocol/ordered_reports.h"
#include "protocol/receive_budget.h"
#include "protocol/receive_ring.h"
#include "protocol/remote_memory_agent.h"
#include "protocol/rendezvous_transfers.h"
#include "protocol/send_window.h"
#include "protocol/submission.h"
#include "protocol/transport.h"
#include "wire/control_message.h"
#include "wire/handshake.h"
#include "wire/message_header.h"

namespace jrdma {

// ibv_wc_status values every transport reports completions with.
constexpr int kStatusSuccess = 0;
constexpr int kStatusFlushed = 5;  // IBV_WC_WR_FLUSH_ERR

struct EngineOptions {
  uint32_t depth = 128;                    // send and receive slots; the credits this side announces
  uint32_t send_slots = 0;                 // sends in flight at most, when fewer than depth (0: depth)
  uint32_t eager = 4096;                   // bytes per receive buffer, header included
  uint32_t graceful_close_ms = 2000;       // how long close() waits for posted operations
  uint32_t max_message = 1u << 30;         // the largest message this side accepts (announced)
  uint32_t rendezvous = 8;                 // transfers this side receives at a time (announced)
  uint32_t read_chunk = 1u << 20;          // bytes per RDMA READ of a transfer (rendezvousChunkSize)
  uint32_t max_reads = 16;                 // READs this side keeps outstanding (the QP's initiator depth)
  uint32_t keepalive_ms = 0;               // a peer silent this long is gone (announced; 0: not watched)
  uint32_t operation_timeout_ms = 0;       // operations waiting this long without progress fail (0: never)
  uint32_t agent_timeout_ms = 10000;       // an allocation request the peer does not answer this long fails
  uint64_t agent_quota_bytes = 64u << 20;  // bytes the peer may have us allocate for it at a time
  uint32_t agent_quota_count = 256;        // allocations the peer may hold at a time
  std::vector<uint8_t> psk;                // the pre-shared key (authenticate()); empty: none
  uint32_t auth_timeout_ms = 5000;         // how long the peer has to prove it holds the key
  ReceiveBudget* budget = nullptr;         // the context's limit on bytes being received; null: none
  // The sends in flight at most: send_slots where set (never above depth), else depth.
  uint32_t send_window() const noexcept { return send_slots != 0 && send_slots < depth ? send_slots : depth; }
};

// A header slot holds a message header and, for a control message, its payload (AUTH's is the largest).
constexpr std::size_t kHeaderSlotSize = wire::kHeaderSize + wire::kAuthPayloadSize;

// A control message the engine sends on its own (an answer to the peer), waiting for a credit.
struct ControlMessage {
  wire::MessageType type;
  uint8_t payload[wire::kControlPayloadSize];
};

// Where receive ring, header slots and atomic results lie in a channel's memory block.
struct ChannelMemoryLayout {
  std::size_t ring = 0;
  std::size_t headers = 0;
  std::size_t results = 0;
  std::size_t size = 0;
  static ChannelMemoryLayout of(uint32_t depth, uint32_t eager) noexcept;
};

class ChannelEngine : private AgentPort, private RendezvousPort {
 public:
  enum class State { kIdle, kStarted, kOpen, kClosing, kClosed };

  ChannelEngine(uint32_t key, const EngineOptions& options, ChannelMemory memory, EventSink& sink);
  ChannelEngine(const ChannelEngine&) = delete;
  ChannelEngine& operator=(const ChannelEngine&) = delete;

  uint32_t key() const noexcept { return key_; }
  const EngineOptions& options() const noexcept { return options_; }
  wire::Handshake local_handshake() const noexcept;

  // --- set-up (loop thread) ------------------------------------------------------------------
  // The transport exists: every receive buffer is posted. False if the engine closed meanwhile.
  bool attach(ChannelTransport* transport);
  void set_peer(const wire::Handshake& peer);
  wire::Handshake peer() const;
  // The connection is established (idempotent): kChannelOpen, or with authentication first the
  // proofs both ways (the client sends its proof now).
  void open();
  // Both ends hold the pre-shared key (options().psk): the channel opens for Java only once the peer
  // has proven it holds it (docs/protocol.md, "Authentication"). Before open(); the server made
  // `server_nonce` and sent it in its accept, the client read it from there.
  void authenticate(bool client, const uint8_t* server_nonce);
  bool authenticating() const;

  // --- any thread -----------------------------------------------------------------------------
  // Takes a batch of Java's submissions; posts what credits and slots allow, queues the rest.
  // Throws RdmaError(kIllegalArgument) for a malformed submission (the earlier ones stand).
  void submit(const Submission* batch, int count);
  // Graceful: queued operations fail (kOpsUnposted), posted ones complete, then kChannelClosed;
  // bounded by graceful_close_ms (tick()).
  void close();
  // Now: kChannelClosed with the cause; everything not reported yet fails with it.
  void abort(ClosedCause cause, int32_t code = 0, int64_t detail = 0, int64_t detail2 = 0);
  State state() const;
  bool closed() const { return state() == State::kClosed; }
  std::string describe() const;
  // A copy of what the channel did so far (kept after the close).
  ChannelCounters counters() const;

  // --- loop thread: transport events, then flush() once per batch ---------------------------
  void on_send_completion(uint32_t slot, int status);
  void on_receive(uint32_t slot, uint32_t byte_len);
  void on_immediate(uint32_t slot, uint32_t immediate);
  void on_receive_error(int status);
  // Bytes of the context's receive budget came back: transfers that waited for them may start.
  void retry_budget();
  // Posts re-posts and the requests the events made possible (one chain, one doorbell).
  void flush();
  // Every ~100 ms: the graceful close's deadline, keepalive (a silent peer closes the channel
  // with kPeerSilent; an idle side sends a credit message every peer keepalive / 3), the operation
  // timeout and the operations' own deadlines (kOperationTimeout).
  void tick(std::chrono::steady_clock::time_point now);

 private:
  void keepalive_locked(std::chrono::steady_clock::time_point now);
  void count_posted_locked(OpKind kind, uint64_t length) noexcept;
  void count_received_locked(uint64_t length, bool rendezvous) noexcept;
  void watch_operations_locked(std::chrono::steady_clock::time_point now);
  void note_deadline_locked(const Submission& s);
  static bool needs_credit(OpKind kind) noexcept {
    return kind == OpKind::kSend || kind == OpKind::kWriteWithImmediate || kind == OpKind::kCredit ||
           kind == OpKind::kControl || RemoteMemoryAgent::handles(kind);
  }
  bool is_rendezvous(const Submission& s) const noexcept {
    return static_cast<OpKind>(s.kind) == OpKind::kSend && s.length > peer_.eager - wire::kHeaderSize;
  }
  bool can_post_locked(const Submission& s) const noexcept;
  void take_locked(const Submission& s);
  void take_control_locked(const ControlMessage& control);
  uint32_t take_message_slot_locked(OpKind kind, uint64_t seq, uint64_t ticket, wire::MessageType type,
                                    uint32_t length);
  void take_receive_side_locked(const Submission& s);
  // The remote-memory agent's messages (protocol/remote_memory_agent.h; channel_engine_agent.cc).
  void take_agent_message_locked(const Submission& s, uint64_t ticket);
  void answer_agent_locked(const Submission& s);
  void receive_agent_locked(uint32_t slot, const wire::MessageHeader& h);
  // AgentPort: what the agent says goes out through the engine (called under its lock).
  void report(const EventRecord& record) override { sink_.emit(record); }
  void report_in_order(const EventRecord& record) override { deliveries_.deliver(record, sink_); }
  void send_control(wire::MessageType type, const uint8_t* payload) override;
  void revoke_remote_key(uint32_t rkey) override;
  // Authentication (channel_engine_auth.cc).
  void announce_open_locked();
  void send_auth_locked(const AuthMessage& message);
  void send_client_proof_locked();
  void receive_auth_locked(uint32_t slot);
  void chain_control_locked(uint32_t slot, std::size_t payload);
  void emit_reports_locked();
  bool quiet_locked() const noexcept {
    return window_.in_flight() == 0 && chain_.empty() && rendezvous_.sending() == 0;
  }
  void finish_closing_if_quiet_locked() {
    if (state_ == State::kClosing && quiet_locked()) finish_locked(ClosedCause::kLocal);
  }
  // Receive side (channel_engine_receive.cc).
  void deliver_data_locked(uint32_t slot, const wire::MessageHeader& h);
  // Rendezvous (protocol/rendezvous_transfers.h; channel_engine_rendezvous.cc).
  void take_rendezvous_send_locked(const Submission& s, uint64_t ticket);
  void receive_start_locked(uint32_t slot, const wire::MessageHeader& h);
  void receive_done_locked(uint32_t slot);
  void pump_transfers_locked() {
    if (state_ == State::kOpen) rendezvous_.pump();
  }
  // RendezvousPort: what the transfers do goes through the engine (called under its lock).
  bool chain_read(const TransferRead& read) override;
  void answer_peer(const wire::RendezvousDone& done) override;
  void needs_buffer(uint64_t id, uint64_t length) override;
  void incoming_ended(uint64_t id, uint64_t length, bool delivered) override;
  void outgoing_ended(uint64_t ticket, int32_t status, int64_t detail) override;
  void revoke(uint64_t exposure) override;
  void forgo_read(uint32_t rkey) override;
  void take_batch_locked(const Submission* batch, int count);
  void drain_queue_locked();
  void flush_locked();
  void open_locked();
  void finish_locked(ClosedCause cause, int32_t code = 0, int64_t detail = 0, int64_t detail2 = 0);
  void protocol_error_locked(int32_t code) { finish_locked(ClosedCause::kProtocolError, code); }
  // The peer is proven (or needs no proof): the transport opens its memory to it. False when that
  // failed and the channel is closed.
  bool grant_remote_access_locked();
  uint64_t* results() const noexcept;
  uint8_t* header_slot(uint32_t slot) const noexcept;

  const uint32_t key_;
  const EngineOptions options_;
  const ChannelMemoryLayout layout_;
  uint8_t* const control_;  // header slots, then results (in the block, or memory.control)
  const uint32_t credit_threshold_;
  EventSink& sink_;

  mutable std::mutex mutex_;
  State state_ = State::kIdle;
  ChannelTransport* transport_ = nullptr;
  wire::Handshake peer_;
  uint32_t credits_ = 0;            // sends the peer has buffers for
  uint32_t credits_to_return_ = 0;  // re-posted buffers whose credits the peer has not got back
  uint64_t next_send_id_ = 0;
  uint64_t next_receive_id_ = 0;
  SendWindow window_;
  ReceiveRing ring_;
  std::deque<Submission> queue_;    // waiting for a credit or a slot, in order
  std::vector<WorkRequest> chain_;  // taken, not yet posted (posted by flush)
  OrderedReports reports_;          // Java's operations, reported in submission order
  RendezvousTransfers rendezvous_;
  std::deque<ControlMessage> controls_;  // answers waiting for a credit or a slot
  RemoteMemoryAgent agent_;
  Authentication auth_;               // while pending, the peer may send nothing but CREDIT and AUTH
  std::deque<PostedReceive> posted_;  // receives the application posted, in order
  DeliveryQueue deliveries_;
  std::chrono::steady_clock::time_point close_deadline_{};
  Keepalive keepalive_;        // tick(): is the peer silent, do we owe it a message
  OperationWatch operations_;  // tick(): stalled operations and missed deadlines
  ChannelCounters counters_;
};

}  // namespace jrdma
