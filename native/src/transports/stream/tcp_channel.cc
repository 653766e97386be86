#include "transports/stream/tcp_channel.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"

namespace jrdma::tcp {

TcpChannel::TcpChannel(int fd, uint8_t* ring, uint32_t eager, MemoryTable& memory)
    : fd_(fd), ring_(ring), eager_(eager), memory_(memory), buffers_(2 * kStagingBytes + kInputBytes) {
  int flags = fcntl(fd_, F_GETFL, 0);
  if (flags < 0 || fcntl(fd_, F_SETFL, flags | O_NONBLOCK) != 0) {
    int error = errno;
    ::close(fd_);
    throw_errno("fcntl(O_NONBLOCK) on the channel's socket", error);
  }
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // latency over batching: frames are whole
}

TcpChannel::~TcpChannel() { ::close(fd_); }

// ---- posting (any thread) ------------------------------------------------------------------------

void TcpChannel::post_chain(const WorkRequest* requests, int count) {
  bool progressed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    post_chain_locked(requests, count);
    progressed = progressed_ || state_ != State::kOpen;
    progressed_ = false;
  }
  if (progressed && waker_ != nullptr) waker_->transport_progress(cookie_);
}

void TcpChannel::post_chain_locked(const WorkRequest* requests, int count) {
  for (int i = 0; i < count; ++i) {
    const WorkRequest& wr = requests[i];
    Pending pending{wr.slot, wr.signaled, wr.kind, 0, wr.local_address, wr.length, false, 0};
    Frame frame;
    Output output;
    frame.key = wr.rkey;
    frame.address = wr.remote_address;
    switch (wr.kind) {
      case OpKind::kSend:
      case OpKind::kCredit:
      case OpKind::kControl:
        frame.type = FrameType::kSend;
        frame.length = wr.header_length + wr.length;
        output.part1 = wr.header;  // the header slot stays put until the slot completes
        output.length1 = wr.header_length;
        output.part2 = reinterpret_cast<const uint8_t*>(wr.local_address);
        output.length2 = wr.length;
        break;
      case OpKind::kWrite:
      case OpKind::kWriteWithImmediate:
        frame.type = wr.kind == OpKind::kWrite ? FrameType::kWrite : FrameType::kWriteImmediate;
        frame.length = wr.length;
        frame.immediate = wr.immediate;
        output.part1 = reinterpret_cast<const uint8_t*>(wr.local_address);
        output.length1 = wr.length;
        pending.request = next_request_++;
        break;
      case OpKind::kTransferRead:
        // The source came ahead of its START: read here, nothing goes to the peer.
        if (state_ == State::kOpen &&
            sources_.serve(wr.rkey, wr.remote_address, wr.length, reinterpret_cast<uint8_t*>(wr.local_address))) {
          pending.done = true;
          progressed_ = true;
          send_queue_.push_back(pending);
          continue;
        }
        [[fallthrough]];
      case OpKind::kRead:
        frame.type = FrameType::kReadRequest;
        frame.length = wr.length;
        pending.request = next_request_++;
        break;
      case OpKind::kCompareAndSwap:
      case OpKind::kFetchAndAdd:
        frame.type = FrameType::kAtomicRequest;
        frame.atomic = wr.kind == OpKind::kFetchAndAdd ? AtomicOp::kFetchAndAdd : AtomicOp::kCompareAndSwap;
        frame.operand0 = wr.compare_add;
        frame.operand1 = wr.swap;
        pending.length = 8;
        pending.request = next_request_++;
        break;
      default:
        throw RdmaError(ErrorKind::kIllegalArgument, std::string("the TCP transport cannot post ") + op_verb(wr.kind));
    }
    frame.request = pending.request;
    send_queue_.push_back(pending);
    if (state_ != State::kOpen) {  // as on a queue pair in error: it completes, flushed
      send_queue_.back().done = true;
      send_queue_.back().status = kStatusFlushed;
      continue;
    }
    encode_frame(frame, output.header);
    if (pending.request == 0) output.completes = &send_queue_.back();  // deque: references survive push/pop at the ends
    push_locked(std::move(output));
  }
  flush_output_locked();
}

void TcpChannel::push_locked(Output output) { output_.push_back(std::move(output)); }

void TcpChannel::post_receives(const uint32_t* slots, int count) {
  std::lock_guard<std::mutex> lock(mutex_);
  receives_.post(slots, count);
}

void TcpChannel::disconnect() noexcept { ::shutdown(fd_, SHUT_RDWR); }  // the loop then reads the end

void TcpChannel::use_shared_memory(std::unique_ptr<ShmPipe> pipe) {
  std::lock_guard<std::mutex> lock(mutex_);
  pipe_ = std::move(pipe);
}

void TcpChannel::grant_remote_access() {
  if (pipe_ != nullptr) {
    pipe_->map();  // the server maps the client's rings only now (throws: the engine fails the connect)
    std::lock_guard<std::mutex> lock(mutex_);
    Frame frame;
    frame.type = FrameType::kRingsFollow;
    Output output;
    encode_frame(frame, output.header);
    output.switches_to_rings = true;
    push_locked(std::move(output));
    flush_output_locked();
  }
  access_granted_.store(true, std::memory_order_release);
}

// ---- the byte stream --------------------------------------------------------------------------------

void TcpChannel::trim_if_idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!idle_trim_.tick(transmits_ + receives_done_)) return;
  if (in_payload_ || header_received_ != 0 || input_begin_ < input_end_) return;  // a frame or bytes in hand
  if (!output_.empty()) return;  // the staging buffer may hold what goes out next
  // Requests wait for the peer's answers, or sources sent ahead for its DONE, or sources held for our
  // engine's READs: not idle but waiting (with thousands of channels streaming, each may wait seconds
  // for its turn); its answers and next frames need the buffers again.
  if (std::any_of(send_queue_.begin(), send_queue_.end(), [](const Pending& p) { return !p.done; })) return;
  if (!sources_.idle()) return;
  buffers_.discard();
  sources_.discard();
  idle_trim_.trimmed();
}

long TcpChannel::transmit(const iovec* parts, int count) {
  ++transmits_;  // under mutex_ (write_gathered_locked)
  if (!output_in_rings_) {
    msghdr message{};
    message.msg_iov = const_cast<iovec*>(parts);
    message.msg_iovlen = static_cast<std::size_t>(count);
    return ::sendmsg(fd_, &message, MSG_NOSIGNAL);
  }
  long written = pipe_->write(parts, count);
  if (written <= 0) {
    errno = written < 0 ? EPROTO : EAGAIN;  // full: the reader rings the socket once it made room
    return -1;
  }
  if (pipe_->peer_sleeps()) ring_peer();
  return written;
}

long TcpChannel::receive(uint8_t* into, std::size_t length) {
  ++receives_done_;  // loop thread
  if (!input_in_rings_) {
    iovec part{into, length};
    return read_socket(&part, 1);
  }
  long got = pipe_->read(into, length);
  if (got < 0) {
    errno = EPROTO;  // the peer's index into the rings cannot be right
    return -1;
  }
  if (pipe_->writer_waits()) ring_peer();
  if (got > 0) return got;
  // Empty: the socket's wake-ups are drained, and its end is the peer's end — after every frame it
  // put into the ring, which were read first.
  if (!drain_wakeups()) return -1;
  if (pipe_->readable()) return receive(into, length);  // written while we drained
  if (socket_ended_) return 0;
  errno = EAGAIN;
  return -1;
}

long TcpChannel::receive_with_read_ahead(uint8_t* into, std::size_t length) {
  if (input_in_rings_) return receive(into, length);  // the ring is memory: its next frames are read at no cost
  ++receives_done_;
  iovec parts[2] = {{into, length}, {input(), kInputBytes}};
  return read_socket(parts, 2);
}

// The socket is read only while epoll's last word says bytes may be there: a read that found it
// drained (EAGAIN, or fewer bytes than asked for) waits for the next edge, so processing a channel
// for another reason (a posting thread's progress, room to write) costs no system call. Once the
// peer's end came, reads go on until one returns 0.
long TcpChannel::read_socket(iovec* parts, int count) {
  if (!socket_readable_) {
    errno = EAGAIN;
    return -1;
  }
  msghdr message{};
  message.msg_iov = parts;
  message.msg_iovlen = static_cast<std::size_t>(count);
  long got = ::recvmsg(fd_, &message, 0);
  if (got < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) socket_readable_ = false;
  } else if (got > 0 && !peer_hung_up_) {
    std::size_t asked = 0;
    for (int i = 0; i < count; ++i) asked += parts[i].iov_len;
    if (static_cast<std::size_t>(got) < asked) socket_readable_ = false;
  }
  return got;
}

bool TcpChannel::drain_wakeups() {
  uint8_t wakeups[256];
  while (input_in_rings_ && !socket_ended_) {
    iovec part{wakeups, sizeof wakeups};
    long n = read_socket(&part, 1);
    if (n == 0) socket_ended_ = true;  // receive() reports the end once the ring is empty
    if (n < 0 && errno != EINTR) return errno == EAGAIN || errno == EWOULDBLOCK;  // all read, or failed
  }
  return true;
}

// One byte on the socket wakes the peer's loop; should the socket be full, wake-ups are pending anyway.
void TcpChannel::ring_peer() noexcept {
  uint8_t one = 1;
  if (::send(fd_, &one, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
    // EAGAIN: unread wake-ups are waiting; EPIPE: the peer is gone and the loop reads the end
  }
}

// A source short enough goes ahead of its START while a credit allows (sources_ahead.h): its bytes
// straight from where they are, as a send's — they stay put until the peer's DONE revokes them.
ChannelTransport::Exposure TcpChannel::expose_for_read(uint64_t address, uint64_t length) {
  uint32_t key = memory_.add(address, length, kRemoteRead);
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kOpen && access_granted_.load(std::memory_order_acquire) && sources_.send_ahead(key, length)) {
    Frame frame;
    frame.type = FrameType::kSourceAhead;
    frame.length = static_cast<uint32_t>(length);
    frame.key = key;
    frame.address = address;
    Output output;
    encode_frame(frame, output.header);
    output.part1 = reinterpret_cast<const uint8_t*>(address);
    output.length1 = static_cast<uint32_t>(length);
    output.ahead_key = key;
    push_locked(std::move(output));  // leaves with the START, which the engine posts next
  }
  return Exposure{key, key};
}

// A source revoked before it was all written (the channel is closing: a DONE comes only after the
// peer read every byte) must not be read any more: not yet begun, it never leaves; begun, the
// stream cannot take the rest back and ends.
void TcpChannel::revoke(uint64_t handle) noexcept {
  uint32_t key = static_cast<uint32_t>(handle);
  memory_.remove(key);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!sources_.revoked(key)) return;
  auto ahead = std::find_if(output_.begin(), output_.end(), [key](const Output& o) { return o.ahead_key == key; });
  if (ahead == output_.end()) return;
  if (ahead->written == 0) {
    output_.erase(ahead);
  } else {
    end_stream_locked(State::kFailed, "a source sent ahead was revoked while it was being written", kStatusFlushed);
  }
}

void TcpChannel::forgo_read(uint32_t rkey) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  sources_.forget(rkey);
}

bool TcpChannel::wants_write() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !output_.empty();
}

uint64_t TcpChannel::reads_served_ahead() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sources_.served();
}

uint64_t TcpChannel::transmit_calls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return transmits_;
}

std::string TcpChannel::failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

// ---- writing (any thread, under mutex_) -------------------------------------------------------------

void TcpChannel::flush_output_locked() {
  while (!output_.empty() && state_ == State::kOpen && write_gathered_locked()) {
  }
  if (closing_ && output_.empty()) {
    end_stream_locked(State::kFailed, "the peer asked for memory it may not reach", kStatusRemoteAccess);
  }
}

void TcpChannel::close_after_answers() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::kOpen) return;
  closing_ = true;
  flush_output_locked();
}

// One system call for as many queued frames as it can carry: each frame is a system call of its
// own otherwise, and a large message's rendezvous is several frames (START, READ request and
// response, DONE, credits) of which a turn often has a few ready at once. A read response's table
// memory goes through the one staging buffer, so a gather holds one step of it at most and ends
// with it; a gather also ends after kRingsFollow (what follows goes into the rings). Pops what was
// written whole; false when the stream took nothing (full, or failed).
bool TcpChannel::write_gathered_locked() {
  iovec parts[kGatherParts];
  std::size_t offered[kGatherParts];  // bytes offered of each frame, front first
  int n = 0;
  int frames = 0;
  bool staged = false;
  for (Output& o : output_) {
    if (n + 3 > kGatherParts || (staged && o.table_length > 0)) break;
    int first_part = n;
    std::size_t offset = o.written;
    auto add = [&](const uint8_t* data, std::size_t length) {
      if (offset >= length) {
        offset -= length;
        return;
      }
      parts[n++] = iovec{const_cast<uint8_t*>(data + offset), length - offset};
      offset = 0;
    };
    add(o.header, kFrameHeaderSize);
    add(o.part1, o.length1);
    add(o.part2, o.length2);
    bool whole = true;
    if (o.table_length > 0) {
      // A read response's bytes, copied from the table a step at a time: a region removed meanwhile
      // is never read (the peer's stream then ends; it cannot be half-answered).
      std::size_t table_done = o.written > kFrameHeaderSize ? o.written - kFrameHeaderSize : 0;
      uint32_t step = static_cast<uint32_t>(std::min<std::size_t>(o.table_length - table_done, kStagingBytes));
      if (!memory_.copy_out(o.table_key, o.table_address + table_done, staging(), step)) {
        end_stream_locked(State::kFailed, "memory the peer was reading was deregistered during the read",
                          kStatusRemoteAccess);
        return false;
      }
      parts[n++] = iovec{staging(), step};
      staged = true;
      whole = table_done + step == o.table_length;
    }
    offered[frames] = 0;
    for (int i = first_part; i < n; ++i) offered[frames] += parts[i].iov_len;
    ++frames;
    if (!whole || o.switches_to_rings) break;
  }
  long sent;
  do {
    sent = transmit(parts, n);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) {
    // EAGAIN: staged table bytes not taken are copied again next time (the copy is cheap; the check must be redone).
    if (errno != EAGAIN && errno != EWOULDBLOCK) end_stream_ended_by_errno_locked("sending on", errno);
    return false;
  }
  std::size_t left = static_cast<std::size_t>(sent);
  for (int i = 0; i < frames; ++i) {
    Output& o = output_.front();
    std::size_t took = std::min(left, offered[i]);
    o.written += took;
    left -= took;
    // Taken in part: try again — a full stream then says so (EAGAIN), which for the rings is what asks
    // the reader to ring once it made room (a partial write into them does not).
    if (took < offered[i]) return true;
    if (o.written < kFrameHeaderSize + o.length1 + o.length2 + o.table_length) return true;  // more table steps
    if (o.completes != nullptr) {
      o.completes->done = true;
      progressed_ = true;
    }
    if (o.switches_to_rings) output_in_rings_ = true;
    output_.pop_front();
  }
  return true;
}

// The peer broke the protocol a queue pair enforces: the stream ends, everything flushes.
void TcpChannel::violate(const std::string& why, ProtocolViolation code) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kOpen) violation_ = static_cast<int32_t>(code);
  end_stream_locked(State::kFailed, "the peer sent " + why, kStatusFlushed);
}

// A reset or broken pipe is the peer going away; anything else, the connection failing.
void TcpChannel::end_stream_ended_by_errno_locked(const char* what, int error) {
  if (error == EPROTO) {  // the rings: an index the peer wrote cannot be right
    if (state_ == State::kOpen) violation_ = static_cast<int32_t>(ProtocolViolation::kMalformedFrame);
    return end_stream_locked(State::kFailed, "the peer corrupted an index of the shared-memory rings", kStatusFlushed);
  }
  std::string why = std::string(what) + " the channel's socket failed: " + std::strerror(error);
  if (error == ECONNRESET || error == EPIPE) {
    end_stream_locked(State::kPeerClosed, why, kStatusFlushed);
  } else {
    end_stream_locked(State::kFailed, why, kStatusRetryExceeded);
  }
}

void TcpChannel::end_stream_locked(State state, const std::string& why, int status) {
  if (state_ != State::kOpen) return;
  state_ = state;
  failure_ = why;
  end_status_ = status;
  ::shutdown(fd_, SHUT_RDWR);
  output_.clear();  // nothing more leaves; what waited for it flushes
}

bool TcpChannel::open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_ == State::kOpen;
}

}  // namespace jrdma::tcp
