// The verbs driver of the context's loop (context/transport_driver.h): polls the CQs and hands every
// work completion to its channel's engine, flushes the engines a batch touched (one chain and one
// doorbell each), arms the CQs before the loop sleeps, and reads the completion channel, async
// events and rdma_cm events when their fds are ready. Loop thread only.
#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/error.h"
#include "transports/verbs/async_event.h"
#include "transports/verbs/verbs_context.h"

namespace jrdma {

bool VerbsContext::poll_cq(int budget) {
  const auto& queues = cqs_.all();
  int polled = 0;
  // Each CQ in turn, starting one further each time: a busy CQ does not keep the others waiting.
  for (std::size_t i = 0; i < queues.size() && polled < budget; ++i) {
    polled += poll_one_cq(queues[(next_cq_ + i) % queues.size()]->get(), budget - polled);
  }
  if (queues.size() > 1) next_cq_ = (next_cq_ + 1) % queues.size();
  flush_dirty_channels();
  return polled > 0;
}

int VerbsContext::poll_one_cq(ibv_cq* cq, int budget) {
  constexpr int kBatch = 32;
  ibv_wc wc[kBatch];
  // JRDMA_TRACE_CQ=1 prints every work completion (diagnostics; docs/testing.md).
  static const bool trace = std::getenv("JRDMA_TRACE_CQ") != nullptr;
  int polled = 0;
  while (polled < budget) {
    int got = ibv_poll_cq(cq, kBatch, wc);
    if (got < 0) throw RdmaError(ErrorKind::kNative, "ibv_poll_cq() failed: " + std::to_string(got), EIO);
    for (int i = 0; i < got; ++i) {
      const ibv_wc& w = wc[i];
      if (trace) {
        std::fprintf(stderr, "jrdma cq: %s key %u %s slot %u status %d opcode %d qp %u\n",
                     ibv_get_device_name(device()->device), wr_id_key(w.wr_id),
                     wr_id_is_receive(w.wr_id) ? "recv" : "send", wr_id_slot(w.wr_id), w.status, w.opcode, w.qp_num);
      }
      VerbsChannelEntry* channel = nullptr;
      if (wr_id_is_receive(w.wr_id) && shared_queues_.enabled()) {
        channel = receive_shared(w);
      } else {
        channel = lookup(wr_id_key(w.wr_id));
        if (channel != nullptr) dispatch(*channel, w);
      }
      if (channel == nullptr) continue;  // the channel was destroyed: a late (flushed) completion
      if (!channel->dirty) {
        channel->dirty = true;
        dirty_.push_back(channel);
      }
    }
    // The buffers of this batch go back to the shared queues before the engines' flush returns
    // their credits: a peer's next message finds one.
    if (got > 0 && shared_queues_.enabled()) shared_queues_.post_given_back();  // not on a busy loop's empty polls
    polled += got;
    if (got < kBatch) break;
  }
  return polled;
}

void VerbsContext::dispatch(VerbsChannelEntry& channel, const ibv_wc& w) {
  const uint32_t slot = wr_id_slot(w.wr_id);
  ChannelEngine& engine = channel.engine;
  if (!wr_id_is_receive(w.wr_id)) {
    engine.on_send_completion(slot, w.status);
  } else if (w.status != IBV_WC_SUCCESS) {
    engine.on_receive_error(w.status);
  } else if (w.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
    engine.on_immediate(slot, ntohl(w.imm_data));
  } else {
    engine.on_receive(slot, w.byte_len);
  }
}

VerbsChannelEntry* VerbsContext::receive_shared(const ibv_wc& w) {
  verbs::SharedReceiveQueue* queue = shared_queues_.at(wr_id_key(w.wr_id));
  const uint32_t number = wr_id_slot(w.wr_id);
  const uint8_t* data = queue != nullptr ? queue->buffer(number) : nullptr;
  if (data == nullptr) return nullptr;  // no buffer of ours (cannot happen: the ids are ours)
  queue->give_back(number);             // posted again at the end of the batch, after the copy below
  uint32_t key = 0;
  VerbsChannelEntry* channel = queue->channel_of(w.qp_num, &key) ? lookup(key) : nullptr;
  if (channel == nullptr) return nullptr;  // its queue pair is gone: a late message, dropped
  ChannelEngine& engine = channel->engine;
  if (w.status != IBV_WC_SUCCESS) {
    engine.on_receive_error(w.status);
    return channel;
  }
  // No slot posted: the peer sent beyond its credits; the engine finds the slot invalid and closes
  // the channel with a protocol error (kUnexpectedReceive).
  uint32_t slot = UINT32_MAX;
  bool posted = channel->transport.take_posted(&slot);
  if (w.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
    engine.on_immediate(slot, ntohl(w.imm_data));
  } else {
    // byte_len is at most the buffer, which is the channel's eager size: its ring slot's.
    if (posted) std::memcpy(channel->transport.ring_slot(slot), data, std::min(w.byte_len, queue->buffer_size()));
    engine.on_receive(slot, w.byte_len);
  }
  return channel;
}

void VerbsContext::flush_dirty_channels() {
  for (VerbsChannelEntry* channel : dirty_) {
    channel->dirty = false;
    channel->engine.flush();  // re-posts and what the completions made postable: one doorbell
  }
  dirty_.clear();
}

void VerbsContext::drain_completion_channel() {
  ibv_cq* ev_cq = nullptr;
  void* ev_ctx = nullptr;
  // One notification per wake-up: the CQ raises one per arm, and should more be queued (arms that
  // were not slept on), the level-triggered epoll reports the fd again. Reading until EAGAIN would
  // cost a system call per message in event mode.
  if (ibv_get_cq_event(channel_.get(), &ev_cq, &ev_ctx) == 0) {
    if (verbs::CompletionQueue* queue = cqs_.find(ev_cq)) queue->event_received();
  }
}

void VerbsContext::drain_async_events() {
  ibv_async_event event{};
  while (ibv_get_async_event(device_.get(), &event) == 0) {
    if (event.event_type == IBV_EVENT_SRQ_LIMIT_REACHED || event.event_type == IBV_EVENT_QP_LAST_WQE_REACHED) {
      // A shared queue ran low — maybe another context's: contexts on one device share librdmacm's
      // device context and so its async events; the queue's own loop grows it — or a queue pair on
      // one took its last receive (it is being destroyed). Nothing for the application.
      if (event.event_type == IBV_EVENT_SRQ_LIMIT_REACHED) verbs::SharedReceiveQueue::report_low(event.element.srq);
      ibv_ack_async_event(&event);
      continue;
    }
    emit(make_record(EventKind::kAsyncEvent, 0, event.event_type, async_event_port(event),
                     static_cast<int64_t>(classify_async_event(event.event_type))));
    ibv_ack_async_event(&event);
  }
}

bool VerbsContext::poll(int budget) { return poll_cq(budget); }

// The CQ is polled in user space; every other source is a fd.
unsigned VerbsContext::polls_per_fd_check() const noexcept { return 256; }

bool VerbsContext::arm_for_sleep(int budget) {
  if (cq_armed_) return false;
  cqs_.arm_all();
  cq_armed_ = true;
  return poll_cq(budget);
}

void VerbsContext::on_ready(void* tag, uint32_t) {
  switch (*static_cast<Source*>(tag)) {
    case Source::kCompletion:
      drain_completion_channel();
      cq_armed_ = false;  // the notification is spent: the loop polls, and arms again before it sleeps
      break;
    case Source::kAsync:
      drain_async_events();
      break;
    case Source::kCm:
      drain_cm_events();
      break;
  }
}

int VerbsContext::poll(EventRecord* out, int capacity) {
  if (closed_) throw RdmaError(ErrorKind::kIllegalState, "context " + name_ + " is closed");
  loop_.enter();
  poll_cq(capacity);
  return loop_.take_records(out, capacity);
}

int VerbsContext::wait_events(EventRecord* out, int capacity, int timeout_ms, PollMode mode) {
  if (closed_) throw RdmaError(ErrorKind::kIllegalState, "context " + name_ + " is closed");
  return loop_.wait_events(out, capacity, timeout_ms, mode);
}

}  // namespace jrdma
