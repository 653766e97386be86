// The TCP transport of one channel: the engine's work requests as frames on one connected socket
// (tcp_frame.h), with the semantics of a reliable-connected queue pair — sends land in the peer's
// posted receives in order, one-sided requests act on the peer's registered memory after its
// transport checked key, range and access (tcp_memory.h), the send queue completes in order, and a
// broken connection flushes everything once. Posting runs on any thread; reading, answering the
// peer's requests and handing completions to the engine run on the loop thread (process()).
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "context/channel_memory.h"
#include "context/posted_slots.h"
#include "protocol/channel_engine.h"
#include "protocol/transport.h"
#include "transports/stream/idle_trim.h"
#include "transports/stream/shm_pipe.h"
#include "transports/stream/sources_ahead.h"
#include "transports/stream/tcp_frame.h"
#include "transports/stream/tcp_memory.h"

namespace jrdma::tcp {

// Told when a request completed outside process() (written by the posting thread): the loop must
// run process() again to hand the completion over, as a CQ event would make it.
class TransportWaker {
 public:
  virtual ~TransportWaker() = default;
  virtual void transport_progress(void* cookie) noexcept = 0;
};

class TcpChannel : public ChannelTransport {
 public:
  // `fd`: a connected TCP socket, owned from now on (made non-blocking, TCP_NODELAY). `ring`: the
  // channel's receive ring, slot s at ring + s * eager. `memory`: what the peer may touch here.
  TcpChannel(int fd, uint8_t* ring, uint32_t eager, MemoryTable& memory);
  ~TcpChannel() override;
  TcpChannel(const TcpChannel&) = delete;
  TcpChannel& operator=(const TcpChannel&) = delete;

  // --- ChannelTransport (any thread) ------------------------------------------------------------
  void post_chain(const WorkRequest* requests, int count) override;
  void post_receives(const uint32_t* slots, int count) override;
  uint32_t memory_key() const noexcept override { return 0; }  // local memory needs no key over TCP
  void disconnect() noexcept override;
  Exposure expose_for_read(uint64_t address, uint64_t length) override;
  void revoke(uint64_t handle) noexcept override;
  void forgo_read(uint32_t rkey) noexcept override;
  void revoke_remote_key(uint32_t rkey) noexcept override { memory_.remove(rkey); }
  // From now on the peer's one-sided requests are served (before, one closes the stream); with
  // shared memory, the rings are mapped and this side's frames move into them.
  void grant_remote_access() override;

  // --- loop thread ------------------------------------------------------------------------------
  enum class State { kOpen, kPeerClosed, kFailed };
  // Reads what arrived and answers the peer's requests, writes what the socket takes, then hands
  // every completion to the engine in order. kPeerClosed / kFailed once the stream ended (the
  // caller closes the engine; the flushes come with the same call).
  State process(ChannelEngine& engine);
  int fd() const noexcept { return fd_; }
  // Shared-memory rings both sides hold (shm_pipe.h). Called once, before the first frame. Frames
  // start on the socket either way; each side moves its own into the rings once the peer proved
  // itself (grant_remote_access), saying so with kRingsFollow, and reads from the rings once it
  // got the peer's kRingsFollow. Then the socket carries wake-ups only.
  void use_shared_memory(std::unique_ptr<ShmPipe> pipe);
  // Both sides agreed on the rings (frames may still be on the socket until both switched).
  bool uses_shared_memory() const noexcept { return pipe_ != nullptr; }
  // The loop, over shared memory: frames are waiting in the incoming ring (no epoll edge says so).
  bool input_waiting() const noexcept { return input_in_rings_ && pipe_->readable(); }
  // The peer's frames come through the incoming ring now (after its kRingsFollow), not the socket.
  bool reads_rings() const noexcept { return input_in_rings_; }
  // Before the loop sleeps: the peer rings the socket after its next write; true when bytes are
  // waiting already (then do not sleep). disarm_sleep() once awake.
  bool arm_sleep() noexcept { return input_in_rings_ && pipe_->arm_sleep(); }
  void disarm_sleep() noexcept {
    if (input_in_rings_) pipe_->disarm_sleep();
  }
  // Over shared memory, when epoll says the socket has bytes: reads every wake-up byte now. Left
  // there, they pile up (each a segment, costing far more than its byte) until the receive window
  // closes, and then the peer's next wake-up is not delivered at all. False (errno set) when the
  // socket failed; the loop's next read reports it.
  bool drain_wakeups();
  // The loop, when epoll says the peer's end came (EPOLLRDHUP): from now on a short read does not
  // mean the socket is drained. The end may have come with the last bytes, in the same edge: after
  // them only a read that returns 0 sees it, and no further edge would say so.
  void peer_hung_up() noexcept { peer_hung_up_ = true; }
  // The loop, when epoll says the socket has bytes (or its end): the next read calls the kernel.
  void socket_readable() noexcept { socket_readable_ = true; }
  void set_waker(TransportWaker* waker, void* cookie) noexcept {
    waker_ = waker;
    cookie_ = cookie;
  }
  bool wants_write() const;
  // Our READs served from sources the peer sent ahead (none of them went to the peer).
  uint64_t reads_served_ahead() const;
  // System calls that wrote to the stream so far (frames are gathered: fewer calls than frames).
  uint64_t transmit_calls() const;
  // Why the stream ended: "" while open.
  std::string failure() const;
  // Loop thread, once a tick: a channel that moved nothing for a while (IdleTrim: a second at first,
  // longer for a channel whose traffic came back soon after a trim) gives the pages of its staging,
  // read-ahead and source buffers back to the system (zero pages, touched again when traffic resumes),
  // so an idle channel costs as little after traffic as before it.
  void trim_if_idle();
  // Resident bytes of those buffers and of the slots for sources sent ahead (diagnostics and tests).
  std::size_t resident_buffer_bytes() const noexcept { return buffers_.resident() + sources_.resident(); }

 private:
  static constexpr std::size_t kStagingBytes = 64 * 1024;     // table memory copied per step, in or out
  static constexpr std::size_t kMaxQueuedOutputs = 1024;      // no more requests read while this many answers wait
  static constexpr std::size_t kInputBytes = 64 * 1024;       // small frames are read through this buffer
  static constexpr std::size_t kDirectReadBytes = 16 * 1024;  // a payload this large is read into place
  static constexpr int kGatherParts = 64;                     // iovecs per system call (frames gathered)

  struct Pending {  // a request of the send queue, in posting order
    uint32_t slot;
    bool signaled;
    OpKind kind;
    uint64_t request;        // 0: done once written; else the number of the response it waits for
    uint64_t local_address;  // reads and atomics: where the answer goes
    uint32_t length;
    bool done;
    int status;
  };
  struct Output {  // one frame on its way out: header, then up to two parts or table memory
    uint8_t header[kFrameHeaderSize];
    const uint8_t* part1 = nullptr;
    uint32_t length1 = 0;
    const uint8_t* part2 = nullptr;
    uint32_t length2 = 0;
    uint32_t table_key = 0;  // a read response: `table_length` bytes copied from the table at write time
    uint64_t table_address = 0;
    uint32_t table_length = 0;
    std::size_t written = 0;
    Pending* completes = nullptr;    // done once fully written
    bool switches_to_rings = false;  // kRingsFollow: what comes after it goes into the rings
    uint32_t ahead_key = 0;          // kSourceAhead: the exposure whose bytes part1 points at
  };
  struct Incoming {  // the frame being read
    Frame frame;
    uint8_t* into = nullptr;     // where the payload goes directly (receive slot, our read's buffer)
    bool through_table = false;  // a write: payload staged, then copied in under the table's check
    bool refused = false;        // a write the table refused: payload read and dropped
    uint32_t received = 0;
    uint32_t receive_slot = 0;
  };
  struct ReceiveCompletion {
    uint32_t slot;
    int status;
    uint32_t byte_len;
    bool immediate;
    uint32_t imm;
  };

  // The byte stream under the frames: the socket, or the shared-memory rings (then the socket's
  // bytes are wake-ups, drained here, and its end is the peer's). recv/sendmsg semantics.
  long receive(uint8_t* into, std::size_t length);
  long transmit(const iovec* parts, int count);
  // receive() into `into`, and over the socket whatever follows those bytes into the read-ahead
  // buffer (empty when called), in one call: more than `length` back means read-ahead bytes.
  long receive_with_read_ahead(uint8_t* into, std::size_t length);
  long read_socket(iovec* parts, int count);
  void ring_peer() noexcept;
  void post_chain_locked(const WorkRequest* requests, int count);
  void push_locked(Output output);
  void flush_output_locked();
  bool write_gathered_locked();
  void answer(const Frame& response, uint32_t table_key = 0, uint64_t table_address = 0, uint32_t table_length = 0);
  bool read_input();
  void begin_frame();
  void end_frame();
  void serve_atomic(const Frame& request);
  Pending* awaiting_response(const Frame& response);
  // The peer broke the protocol: the stream ends and the engine closes with a ProtocolViolation.
  void violate(const std::string& why, ProtocolViolation code = ProtocolViolation::kMalformedFrame);
  // A refused access: the stream ends once the answer is out (as both queue pairs go to error).
  void close_after_answers();
  void end_stream_locked(State state, const std::string& why, int status);
  void end_stream_ended_by_errno_locked(const char* what, int error);
  void deliver_receives(ChannelEngine& engine);
  bool take_receive(uint32_t* slot);
  bool open() const;
  void collect_locked();

  const int fd_;
  std::unique_ptr<ShmPipe> pipe_;            // set once, before the first frame
  std::atomic<bool> access_granted_{false};  // the peer proved itself: its one-sided requests are served
  std::atomic<bool> input_in_rings_{false};  // written by the loop thread: the peer's frames come through the rings
  bool output_in_rings_ = false;             // under mutex_: our frames go through the rings
  bool socket_ended_ = false;                // loop thread, over shared memory: the peer closed the socket
  uint8_t* const ring_;
  const uint32_t eager_;
  MemoryTable& memory_;

  // The staging and read-ahead buffers in one mapping (context/channel_memory.h): a page costs
  // memory only once touched and goes back to the system with the channel, so an idle channel
  // holds next to nothing of them (zero-filled vectors cost 192 KiB a channel before any traffic).
  OwnedChannelMemory buffers_;
  uint8_t* staging() const noexcept { return buffers_.data(); }  // table memory on its way out (under mutex_)
  uint8_t* payload_staging() const noexcept { return buffers_.data() + kStagingBytes; }  // loop thread
  uint8_t* input() const noexcept { return buffers_.data() + 2 * kStagingBytes; }        // loop thread
  // Activity for trim_if_idle(), counted where each side runs anyway, without an atomic on the hot
  // path: transmits under mutex_ (any thread), receives on the loop thread.
  uint64_t transmits_ = 0;
  uint64_t receives_done_ = 0;
  IdleTrim idle_trim_;  // under mutex_ (trim_if_idle)

  TransportWaker* waker_ = nullptr;
  void* cookie_ = nullptr;
  bool progressed_ = false;  // under mutex_: a request became done while writing or was served here

  mutable std::mutex mutex_;  // the send queue, the output and the stream's state
  std::deque<Pending> send_queue_;
  std::deque<Output> output_;
  PostedSlots receives_;
  SourcesAhead sources_;  // ours sent ahead (credits) and the peer's held for our READs
  uint64_t next_request_ = 1;
  State state_ = State::kOpen;
  bool closing_ = false;  // close_after_answers(): nothing more is read, the stream ends once output is out
  std::string failure_;
  int end_status_ = 0;     // the ibv_wc_status the engine closes with when the stream failed
  int32_t violation_ = 0;  // a ProtocolViolation instead, when the peer broke the protocol

  // Loop thread only.
  bool peer_hung_up_ = false;
  bool socket_readable_ = true;  // false after a read found the socket drained, until epoll's next edge
  uint8_t header_in_[kFrameHeaderSize];
  std::size_t header_received_ = 0;
  bool in_payload_ = false;
  Incoming in_;
  // read ahead into input(): [input_begin_, input_end_)
  std::size_t input_begin_ = 0;
  std::size_t input_end_ = 0;
  std::deque<ReceiveCompletion> receive_completions_;
  // During process(): the engine messages are handed to before the peer's next one-sided request is
  // served, so that a message (e.g. the agent's release) acts before what the peer posted after it.
  ChannelEngine* input_engine_ = nullptr;
  std::vector<std::pair<uint32_t, int>> send_completions_;  // slot, status; the real ones, then flushes
  std::size_t real_send_completions_ = 0;
  std::vector<uint32_t> receive_flushes_;
};

}  // namespace jrdma::tcp
