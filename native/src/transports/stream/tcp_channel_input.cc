// The TCP transport's loop-thread side: frames read off the socket, checked against what this side
// allows and answered, and the completions handed to the engine (process()); see tcp_channel.h.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "transports/stream/tcp_channel.h"

namespace jrdma::tcp {

// ---- reading (loop thread) ------------------------------------------------------------------------

// Reads frames until the socket has nothing more; false once the stream ended. Small frames come
// through a buffer (one recv takes several frames, header and payload together); a large payload
// goes from the socket straight into place. A short read means the socket is drained for now:
// read_socket() then answers EAGAIN until the next edge of epoll says more came — unless the peer's
// end came (peer_hung_up): then reads go on until one returns 0.
bool TcpChannel::read_input() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (state_ != State::kOpen) return false;
      if (closing_) return true;  // ends once the answers are out: nothing more is read
      // Answers leave together once this pass has read what came (process()); the peer's requests
      // wait while too many are queued.
      if (output_.size() >= kMaxQueuedOutputs) flush_output_locked();
      if (output_.size() >= kMaxQueuedOutputs) return true;
    }
    uint8_t* into;
    std::size_t want;
    if (!in_payload_) {
      into = header_in_ + header_received_;
      want = kFrameHeaderSize - header_received_;
    } else if (in_.into != nullptr) {
      into = in_.into + in_.received;
      want = in_.frame.length - in_.received;
    } else {  // staged: a write checked step by step, or refused and dropped
      into = payload_staging();
      want = std::min<std::size_t>(in_.frame.length - in_.received, kStagingBytes);
    }
    ssize_t got;
    if (input_begin_ < input_end_) {  // buffered bytes first
      got = static_cast<ssize_t>(std::min(want, input_end_ - input_begin_));
      std::memcpy(into, input() + input_begin_, static_cast<std::size_t>(got));
      input_begin_ += static_cast<std::size_t>(got);
    } else if (want >= kDirectReadBytes && into != payload_staging()) {
      // Straight into place, and what follows it (the next frames) into the read-ahead buffer in the
      // same call: otherwise a large payload costs one more read for the next header.
      got = receive_with_read_ahead(into, want);
      if (got > 0 && static_cast<std::size_t>(got) > want) {
        input_begin_ = 0;
        input_end_ = static_cast<std::size_t>(got) - want;
        got = static_cast<ssize_t>(want);
      }
    } else {
      got = receive(input(), kInputBytes);
      if (got > 0) {
        input_begin_ = 0;
        input_end_ = static_cast<std::size_t>(got);
        continue;
      }
    }
    if (got == 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      end_stream_locked(State::kPeerClosed, "the peer closed the connection", kStatusFlushed);
      return false;
    }
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      std::lock_guard<std::mutex> lock(mutex_);
      end_stream_ended_by_errno_locked("receiving on", errno);
      return false;
    }
    if (!in_payload_) {
      header_received_ += static_cast<std::size_t>(got);
      if (header_received_ < kFrameHeaderSize) continue;
      header_received_ = 0;
      if (!decode_frame(header_in_, &in_.frame)) {
        violate("a malformed frame header");
        return false;
      }
      begin_frame();
      continue;
    }
    if (in_.through_table && !in_.refused) {
      uint64_t at = in_.frame.address + in_.received;
      if (!memory_.copy_in(in_.frame.key, at, payload_staging(), static_cast<uint32_t>(got))) {
        in_.refused = true;  // deregistered meanwhile: the rest is dropped, the write fails
      }
    }
    in_.received += static_cast<uint32_t>(got);
    if (in_.received == in_.frame.length) end_frame();
  }
}

// A header arrived: check it against what this side allows, and say where its payload goes.
void TcpChannel::begin_frame() {
  // A one-sided request acts on memory now: the messages before it in the stream are handed over
  // first, as an RC queue pair's receive completions precede what the peer posted after them.
  // A source sent ahead is held like one: nothing of the peer's before its proof.
  bool one_sided = in_.frame.type == FrameType::kWrite || in_.frame.type == FrameType::kWriteImmediate ||
                   in_.frame.type == FrameType::kReadRequest || in_.frame.type == FrameType::kAtomicRequest ||
                   in_.frame.type == FrameType::kSourceAhead;
  if (one_sided && input_engine_ != nullptr && !receive_completions_.empty()) deliver_receives(*input_engine_);
  // Nothing of our memory before the peer proved itself (docs/security.md): not even an answer.
  if (one_sided && !access_granted_.load(std::memory_order_acquire)) {
    return violate("a one-sided request before it proved itself", ProtocolViolation::kNotAuthenticated);
  }
  in_.into = nullptr;
  in_.through_table = false;
  in_.refused = false;
  in_.received = 0;
  const Frame& f = in_.frame;
  switch (f.type) {
    case FrameType::kSend:
      if (f.length > eager_)
        return violate("a message of " + std::to_string(f.length) + " bytes for receive buffers of " +
                       std::to_string(eager_));
      if (!take_receive(&in_.receive_slot)) return violate("a message with no receive posted");
      in_.into = ring_ + static_cast<std::size_t>(in_.receive_slot) * eager_;
      break;
    case FrameType::kWriteImmediate:
      if (!take_receive(&in_.receive_slot)) return violate("a write with immediate and no receive posted");
      [[fallthrough]];
    case FrameType::kWrite:
      in_.through_table = true;
      in_.refused = !memory_.permits(f.key, f.address, f.length, kRemoteWrite);
      break;
    case FrameType::kReadRequest: {
      Frame response;
      response.type = FrameType::kReadResponse;
      response.request = f.request;
      if (!memory_.permits(f.key, f.address, f.length, kRemoteRead)) {
        response.status = kStatusRemoteAccess;
        answer(response);
        close_after_answers();
      } else {
        response.length = f.length;
        answer(response, f.key, f.address, f.length);
      }
      break;
    }
    case FrameType::kAtomicRequest:
      serve_atomic(f);
      break;
    case FrameType::kSourceAhead: {
      std::unique_lock<std::mutex> lock(mutex_);
      try {
        in_.into = sources_.hold(f.key, f.address, f.length);
      } catch (const RdmaError& e) {
        // Our memory, not the peer's fault: the channel fails with the cause.
        return end_stream_locked(State::kFailed,
                                 std::string("mapping the slots for the peer's sources failed: ") + e.what(),
                                 kStatusRetryExceeded);
      }
      if (in_.into == nullptr) {
        lock.unlock();
        return violate("a source ahead of its START beyond its credits or longer than a slot (" +
                       std::to_string(f.length) + " bytes)");
      }
      break;
    }
    case FrameType::kRingsFollow:
      // Only into rings we hold mapped: the client's own from the start, the server's once the
      // client proved itself (so a peer's early switch cannot make us map anything).
      if (pipe_ == nullptr || !pipe_->mapped() || input_in_rings_) {
        return violate("frames through rings it was not given");
      }
      input_in_rings_.store(true, std::memory_order_relaxed);
      input_begin_ = input_end_;  // what the socket read ahead past this frame: wake-up bytes
      break;
    case FrameType::kReadResponse: {
      Pending* read = awaiting_response(f);
      if (read == nullptr) return;
      if (f.status != 0) {
        std::lock_guard<std::mutex> lock(mutex_);
        read->done = true;
        read->status = f.status;
        break;
      }
      if (f.length != read->length) return violate("a read answered with another length");
      in_.into = reinterpret_cast<uint8_t*>(read->local_address);  // our own buffer, held until the read completes
      break;
    }
    case FrameType::kAtomicResponse:
    case FrameType::kWriteResponse: {
      Pending* request = awaiting_response(f);
      if (request == nullptr) return;
      std::lock_guard<std::mutex> lock(mutex_);
      if (f.type == FrameType::kAtomicResponse && f.status == 0) {
        std::memcpy(reinterpret_cast<void*>(request->local_address), &f.operand0, sizeof f.operand0);
      }
      request->done = true;
      request->status = f.status;
      break;
    }
  }
  if (!open()) return;
  if (carries_payload(f) && f.length > 0) {
    in_payload_ = true;
  } else {
    end_frame();
  }
}

// The payload is in: complete the receive, answer the write, or finish our read.
void TcpChannel::end_frame() {
  in_payload_ = false;
  const Frame& f = in_.frame;
  switch (f.type) {
    case FrameType::kSend:
      receive_completions_.push_back({in_.receive_slot, kStatusSuccess, f.length, false, 0});
      break;
    case FrameType::kWrite:
    case FrameType::kWriteImmediate: {
      Frame response;
      response.type = FrameType::kWriteResponse;
      response.request = f.request;
      response.status = in_.refused ? kStatusRemoteAccess : 0;
      answer(response);
      if (in_.refused) close_after_answers();
      if (f.type == FrameType::kWriteImmediate) {
        // A refused write consumed the receive too; the requester's error closes the channel.
        receive_completions_.push_back({in_.receive_slot, in_.refused ? kStatusRemoteAccess : kStatusSuccess, f.length,
                                        !in_.refused, f.immediate});
      }
      break;
    }
    case FrameType::kSourceAhead: {
      std::lock_guard<std::mutex> lock(mutex_);
      sources_.arrived();
      break;
    }
    case FrameType::kReadResponse: {
      if (f.status != 0) break;  // completed with its status when the header came
      Pending* read = awaiting_response(f);
      if (read == nullptr) return;
      std::lock_guard<std::mutex> lock(mutex_);
      read->done = true;
      break;
    }
    default:
      break;
  }
}

void TcpChannel::serve_atomic(const Frame& request) {
  Frame response;
  response.type = FrameType::kAtomicResponse;
  response.request = request.request;
  uint64_t previous = 0;
  if (memory_.atomic(request.key, request.address, request.atomic, request.operand0, request.operand1, &previous)) {
    response.operand0 = previous;
  } else {
    response.status = request.address % 8 != 0 ? kStatusRemoteInvalidRequest : kStatusRemoteAccess;
  }
  answer(response);
  if (response.status != 0) close_after_answers();
}

void TcpChannel::answer(const Frame& response, uint32_t table_key, uint64_t table_address, uint32_t table_length) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::kOpen) return;
  Output output;
  encode_frame(response, output.header);
  output.table_key = table_key;
  output.table_address = table_address;
  output.table_length = table_length;
  push_locked(std::move(output));  // written with whatever else this pass answers (process())
}

// The request a response answers: the oldest one waiting for a response (the peer answers in order).
TcpChannel::Pending* TcpChannel::awaiting_response(const Frame& response) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (Pending& p : send_queue_) {
    if (p.request == 0 || p.done) continue;
    FrameType expected = p.kind == OpKind::kRead || p.kind == OpKind::kTransferRead ? FrameType::kReadResponse
                         : p.kind == OpKind::kCompareAndSwap || p.kind == OpKind::kFetchAndAdd
                             ? FrameType::kAtomicResponse
                             : FrameType::kWriteResponse;
    if (p.request != response.request || expected != response.type) break;
    return &p;
  }
  lock.unlock();
  violate("a response to no request of ours");
  return nullptr;
}

// The receive posted last goes first (context/posted_slots.h).
bool TcpChannel::take_receive(uint32_t* slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  return receives_.take_last(slot);
}

// ---- completions (loop thread) ----------------------------------------------------------------

// Takes the completions that are due, in send-queue order: signaled ones and errors. A failed
// request ends the stream as a queue pair goes to error; once it ended, everything left flushes
// (each once, receives included), after the real completions.
void TcpChannel::collect_locked() {
  while (!send_queue_.empty() && send_queue_.front().done) {
    Pending p = send_queue_.front();
    send_queue_.pop_front();
    if (p.status != kStatusSuccess) {
      end_stream_locked(State::kFailed, "a request failed with status " + std::to_string(p.status), p.status);
    }
    if (p.signaled || p.status != kStatusSuccess) send_completions_.emplace_back(p.slot, p.status);
    if (state_ != State::kOpen) break;
  }
  real_send_completions_ = send_completions_.size();
  if (state_ == State::kOpen) return;
  for (const Pending& p : send_queue_) send_completions_.emplace_back(p.slot, kStatusFlushed);
  send_queue_.clear();
  receives_.drain([this](uint32_t slot) { receive_flushes_.push_back(slot); });
}

void TcpChannel::deliver_receives(ChannelEngine& engine) {
  while (!receive_completions_.empty()) {
    ReceiveCompletion c = receive_completions_.front();
    receive_completions_.pop_front();
    if (c.status != kStatusSuccess) {
      engine.on_receive_error(c.status);
    } else if (c.immediate) {
      engine.on_immediate(c.slot, c.imm);
    } else {
      engine.on_receive(c.slot, c.byte_len);
    }
  }
}

TcpChannel::State TcpChannel::process(ChannelEngine& engine) {
  input_engine_ = &engine;
  read_input();
  input_engine_ = nullptr;
  State state;
  int end_status;
  int32_t violation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    flush_output_locked();
    collect_locked();
    progressed_ = false;  // collected now
    state = state_;
    end_status = end_status_;
    violation = violation_;
  }
  // The engine runs without our lock (what it posts in answer takes it). What really completed
  // goes first — messages that arrived before the peer closed are delivered — then, once the
  // stream ended, the engine closes with the cause, and the flushes reach a closed engine.
  for (std::size_t i = 0; i < real_send_completions_; ++i) {
    engine.on_send_completion(send_completions_[i].first, send_completions_[i].second);
  }
  deliver_receives(engine);
  if (state != State::kOpen && !engine.closed()) {
    if (state == State::kPeerClosed) {
      engine.abort(ClosedCause::kPeerDisconnected);
    } else if (violation != 0) {
      engine.abort(ClosedCause::kProtocolError, violation);
    } else {
      engine.abort(ClosedCause::kOperationFailed, end_status, 0);
    }
  }
  for (std::size_t i = real_send_completions_; i < send_completions_.size(); ++i) {
    engine.on_send_completion(send_completions_[i].first, send_completions_[i].second);
  }
  for (std::size_t i = 0; i < receive_flushes_.size(); ++i) engine.on_receive_error(kStatusFlushed);
  send_completions_.clear();
  receive_flushes_.clear();
  real_send_completions_ = 0;
  return state;
}

}  // namespace jrdma::tcp
