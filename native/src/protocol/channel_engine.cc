#include "protocol/channel_engine.h"

#include <algorithm>

#include "base/error.h"

namespace jrdma {

namespace {
// One credit is always kept back for explicit credit messages, so credits can be returned even
// when data has used up the rest (otherwise two peers with full queues would wait for each other).
constexpr uint32_t kCreditReserve = 1;

std::size_t align8(std::size_t n) noexcept { return (n + 7) & ~static_cast<std::size_t>(7); }
}  // namespace

ChannelMemoryLayout ChannelMemoryLayout::of(uint32_t depth, uint32_t eager) noexcept {
  ChannelMemoryLayout l;
  l.ring = 0;
  l.headers = align8(static_cast<std::size_t>(depth) * eager);
  l.results = l.headers + static_cast<std::size_t>(depth) * kHeaderSlotSize;
  l.size = l.results + static_cast<std::size_t>(depth) * sizeof(uint64_t);
  return l;
}

ChannelEngine::ChannelEngine(uint32_t key, const EngineOptions& options, ChannelMemory memory, EventSink& sink)
    : key_(key),
      options_(options),
      layout_(ChannelMemoryLayout::of(options.depth, options.eager)),
      control_(memory.control != nullptr ? memory.control : memory.base + layout_.headers),
      credit_threshold_(std::max<uint32_t>(2, options.depth / 4)),
      sink_(sink),
      window_(options.send_window(), std::max<uint32_t>(1, std::min<uint32_t>(16, options.depth / 4))),
      ring_(memory.base + layout_.ring, options.depth, options.eager),
      // Room for every operation in the window, for the sends the peer reads, and for as many
      // finished reports again, waiting behind a large send.
      reports_(2 * options.depth + wire::kMaxRendezvous),
      rendezvous_(key, {options.rendezvous, options.read_chunk, options.max_reads, options.budget}, *this),
      agent_(key, {options.agent_timeout_ms, options.agent_quota_bytes, options.agent_quota_count}, *this),
      keepalive_(options.keepalive_ms),
      operations_(options.operation_timeout_ms) {
  std::size_t needed = memory.control != nullptr ? layout_.headers : layout_.size;  // the ring alone, or all
  if (memory.size < needed) {
    throw RdmaError(ErrorKind::kIllegalArgument, "channel memory of " + std::to_string(memory.size) +
                                                     " bytes, the layout needs " + std::to_string(needed));
  }
  chain_.reserve(options.depth);
}

wire::Handshake ChannelEngine::local_handshake() const noexcept {
  wire::Handshake h;
  h.credits = options_.depth;
  h.eager = options_.eager;
  h.max_message = std::max<uint32_t>(options_.max_message, options_.eager - static_cast<uint32_t>(wire::kHeaderSize));
  h.rendezvous = options_.rendezvous;
  h.keepalive = options_.keepalive_ms;
  return h;
}

uint64_t* ChannelEngine::results() const noexcept {
  return reinterpret_cast<uint64_t*>(control_ + (layout_.results - layout_.headers));
}

uint8_t* ChannelEngine::header_slot(uint32_t slot) const noexcept {
  return control_ + static_cast<std::size_t>(slot) * kHeaderSlotSize;
}

// ---- set-up --------------------------------------------------------------------------------------

bool ChannelEngine::attach(ChannelTransport* transport) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::kIdle) return false;
  transport_ = transport;
  state_ = State::kStarted;
  ring_.repost_all();
  transport_->post_receives(ring_.pending_reposts().data(), static_cast<int>(ring_.pending_reposts().size()));
  ring_.mark_reposted();
  return true;
}

void ChannelEngine::set_peer(const wire::Handshake& peer) {
  std::lock_guard<std::mutex> lock(mutex_);
  peer_ = peer;
}

wire::Handshake ChannelEngine::peer() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peer_;
}

void ChannelEngine::open() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_locked();
}

void ChannelEngine::open_locked() {
  if (state_ != State::kStarted) return;
  state_ = State::kOpen;
  credits_ = peer_.credits;
  const auto now = std::chrono::steady_clock::now();
  keepalive_.start(now);
  operations_.start(now);
  if (auth_.pending()) {
    auth_.set_deadline(now + std::chrono::milliseconds(options_.auth_timeout_ms));
    if (auth_.client()) send_client_proof_locked();
    return;  // kChannelOpen once the peer's proof is checked (receive_auth_locked)
  }
  if (grant_remote_access_locked()) announce_open_locked();
}

bool ChannelEngine::grant_remote_access_locked() {
  try {
    transport_->grant_remote_access();
    return true;
  } catch (const RdmaError& e) {
    finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kSetupError), e.errno_value());
    return false;
  }
}

void ChannelEngine::announce_open_locked() {
  sink_.emit(make_record(EventKind::kChannelOpen, key_, static_cast<int32_t>(peer_.credits),
                         static_cast<int32_t>(peer_.max_message)));
}

ChannelEngine::State ChannelEngine::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_;
}

// ---- posting -------------------------------------------------------------------------------------

bool ChannelEngine::can_post_locked(const Submission& s) const noexcept {
  auto kind = static_cast<OpKind>(s.kind);
  if (!window_.has_free_slot()) return false;
  if (kind == OpKind::kCredit) return credits_ >= 1;
  if (!reports_.has_room()) return false;
  if (is_rendezvous(s) && rendezvous_.sending() >= peer_.rendezvous) return false;
  return !needs_credit(kind) || credits_ > kCreditReserve;
}

// Takes a send slot (and a credit) for a message and writes its header; the credits it returns are
// filled in by flush, once they are known.
uint32_t ChannelEngine::take_message_slot_locked(OpKind kind, uint64_t seq, uint64_t ticket, wire::MessageType type,
                                                 uint32_t length) {
  uint32_t slot = window_.take(PostedOp{seq, kind, ticket});
  --credits_;
  wire::MessageHeader h;
  h.type = type;
  h.length = length;
  h.id = next_send_id_++;
  wire::encode_header(h, header_slot(slot));
  return slot;
}

void ChannelEngine::take_locked(const Submission& s) {
  auto kind = static_cast<OpKind>(s.kind);
  // A credit message is internal; an allocation request is answered by the peer (kAgentReply).
  bool reported = kind != OpKind::kCredit && kind != OpKind::kAllocateRemote;
  uint64_t ticket = reported ? reports_.add(s.seq, kind) : 0;
  if (is_rendezvous(s)) return take_rendezvous_send_locked(s, ticket);
  if (RemoteMemoryAgent::handles(kind)) return take_agent_message_locked(s, ticket);
  count_posted_locked(kind, s.length);
  WorkRequest wr{};
  wr.kind = kind;
  wr.local_address = s.local_address;
  wr.length = s.length;
  wr.lkey = s.lkey;
  wr.remote_address = s.remote_address;
  wr.rkey = s.rkey;
  wr.immediate = s.immediate;
  wr.compare_add = s.compare_add;
  wr.swap = s.swap;
  if (kind == OpKind::kSend || kind == OpKind::kCredit) {
    auto type = kind == OpKind::kSend ? wire::MessageType::kData : wire::MessageType::kCredit;
    if (kind == OpKind::kCredit) wr.length = 0;
    wr.slot = take_message_slot_locked(kind, s.seq, ticket, type, wr.length);
    wr.header = header_slot(wr.slot);
    wr.header_length = wire::kHeaderSize;
  } else {
    wr.slot = window_.take(PostedOp{s.seq, kind, ticket});
    if (needs_credit(kind)) --credits_;
  }
  if (kind == OpKind::kCompareAndSwap || kind == OpKind::kFetchAndAdd) {
    // The previous value lands in this slot's result word, read when the slot completes.
    wr.local_address = reinterpret_cast<uintptr_t>(results() + wr.slot);
    wr.length = sizeof(uint64_t);
    wr.lkey = transport_->memory_key();
  }
  chain_.push_back(wr);
}

// A control message is its header slot alone: header and payload.
void ChannelEngine::chain_control_locked(uint32_t slot, std::size_t payload) {
  WorkRequest wr{};
  wr.kind = OpKind::kControl;
  wr.slot = slot;
  wr.header = header_slot(slot);
  wr.header_length = static_cast<uint32_t>(wire::kHeaderSize + payload);
  chain_.push_back(wr);
}

// An answer to the peer (it has a credit and a slot: drain_queue_locked checked).
void ChannelEngine::take_control_locked(const ControlMessage& control) {
  uint32_t slot = take_message_slot_locked(OpKind::kControl, 0, 0, control.type, wire::kControlPayloadSize);
  std::copy(control.payload, control.payload + wire::kControlPayloadSize, header_slot(slot) + wire::kHeaderSize);
  chain_control_locked(slot, wire::kControlPayloadSize);
}

void ChannelEngine::submit(const Submission* batch, int count) {
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    take_batch_locked(batch, count);
  } catch (const RdmaError&) {
    emit_reports_locked();
    flush_locked();  // the submissions before the bad one stand and are posted
    throw;
  }
  emit_reports_locked();
  pump_transfers_locked();
  flush_locked();
}

void ChannelEngine::take_batch_locked(const Submission* batch, int count) {
  bool refused = false;
  for (int i = 0; i < count; ++i) {
    const Submission& s = batch[i];
    auto kind = static_cast<OpKind>(s.kind);
    switch (kind) {
      case OpKind::kReleaseReceive:
      case OpKind::kReceive:
      case OpKind::kTransferBuffer:
        take_receive_side_locked(s);
        break;
      case OpKind::kAgentAnswer:
        answer_agent_locked(s);
        break;
      case OpKind::kAllocateRemote:
      case OpKind::kReleaseRemote:
      case OpKind::kSendToken:
        RemoteMemoryAgent::check(s);  // what the peer would refuse as malformed never leaves
        [[fallthrough]];
      case OpKind::kSend:
        if (kind == OpKind::kSend && s.length > peer_.max_message && state_ == State::kOpen) {
          throw RdmaError(ErrorKind::kIllegalArgument, "message of " + std::to_string(s.length) +
                                                           " bytes exceeds the peer's limit of " +
                                                           std::to_string(peer_.max_message));
        }
        [[fallthrough]];
      case OpKind::kWrite:
      case OpKind::kWriteWithImmediate:
      case OpKind::kRead:
      case OpKind::kCompareAndSwap:
      case OpKind::kFetchAndAdd:
        if (refused || state_ == State::kClosed) break;  // kChannelClosed reports them
        if (state_ != State::kOpen) {
          // Not connected yet, or closing: this and every later operation of the batch fail.
          sink_.emit(make_record(EventKind::kOpsUnposted, key_, 0, 0, static_cast<int64_t>(s.seq)));
          refused = true;
          break;
        }
        note_deadline_locked(s);
        if (queue_.empty() && controls_.empty() && can_post_locked(s)) {
          take_locked(s);
        } else {
          queue_.push_back(s);
          counters_.add(Counter::kCreditStalls);
        }
        break;
      default:
        throw RdmaError(ErrorKind::kIllegalArgument, "unknown submission kind " + std::to_string(s.kind));
    }
  }
}

void ChannelEngine::drain_queue_locked() {
  // Answers to the peer first: its sends wait for them.
  while (!controls_.empty() && state_ == State::kOpen && window_.has_free_slot() && credits_ > kCreditReserve) {
    take_control_locked(controls_.front());
    controls_.pop_front();
  }
  while (!queue_.empty() && controls_.empty() && state_ == State::kOpen && can_post_locked(queue_.front())) {
    take_locked(queue_.front());
    queue_.pop_front();
  }
  emit_reports_locked();
}

void ChannelEngine::emit_reports_locked() {
  reports_.emit_ready([this](uint64_t seq, OpKind kind, int32_t status, int64_t result) {
    operations_.reported_through(seq);
    if (status != kStatusSuccess) counters_.add(Counter::kFailedOperations);
    sink_.emit(
        make_record(EventKind::kOpDone, key_, status, static_cast<int32_t>(kind), static_cast<int64_t>(seq), result));
  });
}

void ChannelEngine::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  flush_locked();
}

void ChannelEngine::flush_locked() {
  if (state_ == State::kClosed || transport_ == nullptr) return;
  try {
    // Re-posts go first: the headers below return their credits.
    const std::vector<uint32_t>& reposts = ring_.pending_reposts();
    if (!reposts.empty()) {
      transport_->post_receives(reposts.data(), static_cast<int>(reposts.size()));
      credits_to_return_ += static_cast<uint32_t>(reposts.size());
      ring_.mark_reposted();
    }
    bool carries_credits =
        std::any_of(chain_.begin(), chain_.end(), [](const WorkRequest& wr) { return wr.header != nullptr; });
    // No message of this chain carries the owed credits: an explicit credit message does, also
    // when operations are queued — they may be waiting for credits the peer cannot send without ours.
    // Also while closing: the peer may owe us the answer to a send of ours it reads.
    bool live = state_ == State::kOpen || state_ == State::kClosing;
    Submission credit{};
    credit.kind = static_cast<uint8_t>(OpKind::kCredit);
    if (!carries_credits && credits_to_return_ >= credit_threshold_ && live && can_post_locked(credit)) {
      take_locked(credit);
    }
    if (chain_.empty()) return;
    for (std::size_t i = 0; i < chain_.size(); ++i) {
      WorkRequest& wr = chain_[i];
      wr.signaled = window_.signal_next(i + 1 == chain_.size());
      if (wr.header != nullptr) {
        uint16_t credits = static_cast<uint16_t>(std::min<uint32_t>(credits_to_return_, 0xffff));
        credits_to_return_ -= credits;
        wire::set_credits(credits, const_cast<uint8_t*>(wr.header));
      }
    }
    transport_->post_chain(chain_.data(), static_cast<int>(chain_.size()));
    chain_.clear();
    keepalive_.sent();
  } catch (const RdmaError& e) {
    // Some requests of the chain may be on the wire, some not: close the channel, which fails
    // every operation not reported yet exactly once.
    finish_locked(ClosedCause::kOperationFailed, -1, 0, e.errno_value());
  }
}

// ---- send completions (receive side: channel_engine_receive.cc) ------------------------------------

void ChannelEngine::on_send_completion(uint32_t slot, int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kClosed || !window_.posted(slot)) return;  // late: reported by the close
  OpKind failed_kind = OpKind::kSend;
  window_.complete_through(slot, [&](uint32_t done, const PostedOp& op, bool last) {
    int op_status = last ? status : kStatusSuccess;
    if (last) failed_kind = op.kind;
    switch (op.kind) {
      case OpKind::kCredit:
      case OpKind::kControl:
      case OpKind::kAllocateRemote:
        return;  // internal; a START's send and an allocation are reported when the peer answers
      case OpKind::kTransferRead:
        if (op_status == kStatusSuccess) rendezvous_.read_done(op.seq);
        return;
      default:
        break;
    }
    bool atomic = op.kind == OpKind::kCompareAndSwap || op.kind == OpKind::kFetchAndAdd;
    int64_t result = atomic && op_status == kStatusSuccess ? static_cast<int64_t>(results()[done]) : 0;
    reports_.complete(op.ticket, op_status, result);
  });
  emit_reports_locked();
  if (status != kStatusSuccess) {
    if (status == kStatusFlushed && state_ != State::kOpen) {
      finish_closing_if_quiet_locked();
      return;  // flushed by our own close
    }
    finish_locked(ClosedCause::kOperationFailed, status, static_cast<int32_t>(failed_kind));
    return;
  }
  pump_transfers_locked();
  drain_queue_locked();
  finish_closing_if_quiet_locked();
}

// ---- closing -------------------------------------------------------------------------------------

void ChannelEngine::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  switch (state_) {
    case State::kClosing:
    case State::kClosed:
      return;
    case State::kIdle:
    case State::kStarted:
      return finish_locked(ClosedCause::kLocal);
    case State::kOpen:
      break;
  }
  state_ = State::kClosing;
  if (!queue_.empty()) {
    uint64_t first_unposted = queue_.front().seq;
    sink_.emit(make_record(EventKind::kOpsUnposted, key_, 0, 0, static_cast<int64_t>(first_unposted)));
    queue_.clear();
    operations_.unposted_from(first_unposted);
  }
  flush_locked();  // what was taken is posted and completes; sends the peer reads are answered
  finish_closing_if_quiet_locked();
  if (state_ == State::kClosed) return;
  close_deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.graceful_close_ms);
}

void ChannelEngine::abort(ClosedCause cause, int32_t code, int64_t detail, int64_t detail2) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auth_.pending() && cause == ClosedCause::kPeerDisconnected) {
    // The peer hung up before proving the key: it refused our proof (another key), or is no jrdma peer.
    return finish_locked(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kAuthFailed),
                         static_cast<int64_t>(AuthFailure::kPeerHungUp));
  }
  finish_locked(cause, code, detail, detail2);
}

void ChannelEngine::finish_locked(ClosedCause cause, int32_t code, int64_t detail, int64_t detail2) {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  auth_.stop();
  queue_.clear();
  operations_.clear();
  chain_.clear();
  window_.clear();
  reports_.clear();
  controls_.clear();
  agent_.clear();  // Java frees what it allocated for the peer and fails our requests at kChannelClosed
  posted_.clear();
  deliveries_.clear();
  if (transport_ != nullptr) transport_->disconnect();
  // The peer can read nothing of ours any more, and what we were receiving gives its bytes back.
  rendezvous_.clear();
  sink_.emit(make_record(EventKind::kChannelClosed, key_, static_cast<int32_t>(cause), code, detail, detail2));
}

std::string ChannelEngine::describe() const {
  std::lock_guard<std::mutex> lock(mutex_);
  static const char* const kStates[] = {"idle", "connecting", "open", "closing", "closed"};
  return std::string(kStates[static_cast<int>(state_)]) + ", " + std::to_string(window_.in_flight()) + " posted [" +
         window_.describe() + "], " + std::to_string(chain_.size()) + " waiting for the batch end, " +
         std::to_string(queue_.size()) + " queued for credits or slots, " + std::to_string(credits_) + " credits, " +
         std::to_string(credits_to_return_) + " to return, " + std::to_string(ring_.held()) + " messages held, " +
         std::to_string(rendezvous_.sending()) + " sends and " + std::to_string(rendezvous_.receiving()) +
         " messages in rendezvous, " + std::to_string(posted_.size()) + " receives posted, " +
         std::to_string(deliveries_.size()) + " deliveries waiting, " + std::to_string(reports_.waiting()) +
         " reports waiting";
}

}  // namespace jrdma
