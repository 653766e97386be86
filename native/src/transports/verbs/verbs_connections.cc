// Connection management of a context (rdma_cm): listening, the active side's address and route
// resolution and connect, the passive side's validation and accept, and the connection events
// that open or close a channel's engine. Loop thread, except listen() and connect().
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/error.h"
#include "crypto/crypto.h"
#include "transports/verbs/verbs_context.h"
#include "wire/handshake.h"

namespace jrdma {

namespace {
// Closes a channel whose connection attempt failed (kChannelClosed with kConnectFailed).
void connect_failed(VerbsChannelEntry& channel, ChannelFailure failure, int status,
                    wire::RejectReason reason = wire::RejectReason::kNone, uint32_t detail = 0) {
  channel.engine.abort(ClosedCause::kConnectFailed, static_cast<int32_t>(failure), status,
                       static_cast<int64_t>(static_cast<uint16_t>(reason)) | (static_cast<int64_t>(detail) << 16));
}
}  // namespace

void VerbsContext::apply_id_options(verbs::CmId& id, const ChannelOptions& options) const {
  uint8_t timeout = options.queue_pair.timeout;
  // The ACK timeout rdma_cm computes for the route (RDMA_TIMEOUT); RTS sets it on the QP as well.
  id.set_option(RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof timeout, "RDMA_OPTION_ID_ACK_TIMEOUT");
  // The traffic class of rdma_cm's own packets (connect, accept, disconnect) and of the route it
  // resolves; the queue pair's address handle gets it in RTR too (VerbsChannel::ready).
  uint8_t tos = options.queue_pair.traffic_class;
  id.set_option(RDMA_OPTION_ID_TOS, &tos, sizeof tos, "RDMA_OPTION_ID_TOS=" + std::to_string(tos));
}

void VerbsContext::fill_conn_param(rdma_conn_param* param, const VerbsChannelEntry& channel,
                                   uint8_t* private_data) const {
  wire::Handshake local = channel.engine.local_handshake();
  local.mtu = channel.options.queue_pair.mtu;
  if (!channel.options.engine.psk.empty()) local.flags |= wire::kFlagAuthenticate;
  wire::encode_handshake(local, private_data);
  *param = rdma_conn_param{};
  param->qp_num = channel.transport.qp_num();
  param->private_data = private_data;
  param->private_data_len = static_cast<uint8_t>(wire::kHandshakeSize);
  param->responder_resources = static_cast<uint8_t>(max_rd_atomic_);
  param->initiator_depth = static_cast<uint8_t>(max_rd_atomic_);
  param->retry_count = channel.options.queue_pair.retry_count;
  param->rnr_retry_count = channel.options.queue_pair.rnr_retry;
}

VerbsListener* VerbsContext::listen(const sockaddr* address, const ChannelOptions& options, int backlog) {
  auto listener = std::make_unique<VerbsListener>();
  listener->options = options;
  listener->pending.bound = options.max_pending;
  listener->id = verbs::CmId(cm_channel_.get(), listener.get());  // destroyed with the listener on any failure
  listener->id.bind(address);
  if (listener->id->verbs != nullptr && listener->id->verbs != device_.get()) {
    throw RdmaError(ErrorKind::kIllegalArgument, std::string("the address belongs to device ") +
                                                     ibv_get_device_name(listener->id->verbs->device) +
                                                     ", the context is on " + name_);
  }
  apply_id_options(listener->id, options);
  listener->id.listen(backlog);
  // The first accept registers nothing on the loop thread, nor creates the shared receive queue.
  bool shared = shared_queues_.for_eager(options.engine.eager) != nullptr;
  blocks_.put_aside(VerbsChannelEntry::memory_size(options), VerbsChannelEntry::plain_ring(options, shared));
  std::lock_guard<std::mutex> lock(listeners_mutex_);
  listeners_.push_back(listener.get());
  return listener.release();
}

bool VerbsContext::is_listener(const void* context) noexcept {
  std::lock_guard<std::mutex> lock(listeners_mutex_);
  for (VerbsListener* l : listeners_) {
    if (static_cast<const void*>(l) == context) return true;
  }
  return false;
}

void VerbsContext::connect(VerbsChannelEntry* channel, const sockaddr_storage& remote, const sockaddr_storage* local,
                           int timeout_ms) {
  channel->connect_target.remote = remote;
  if (local != nullptr) {
    channel->connect_target.local = *local;
    channel->connect_target.has_local = true;
  }
  channel->connect_target.timeout_ms = timeout_ms;
  Command command{};
  command.kind = Command::kConnect;
  command.channel = channel;
  enqueue(command);
}

void VerbsContext::start_connect(VerbsChannelEntry& channel) {
  const ConnectTarget& c = channel.connect_target;
  if (channel.engine.closed()) return;  // closed before the attempt started
  try {
    channel.transport.attach(verbs::CmId(cm_channel_.get(), &channel));
  } catch (const RdmaError& e) {
    return connect_failed(channel, ChannelFailure::kAddressError, e.errno_value());
  } catch (const std::exception&) {  // bad_alloc: this attempt fails, the loop and its other commands go on
    return connect_failed(channel, ChannelFailure::kSetupError, ENOMEM);
  }
  if (rdma_resolve_addr(channel.transport.cm_id(),
                        c.has_local ? const_cast<sockaddr*>(reinterpret_cast<const sockaddr*>(&c.local)) : nullptr,
                        const_cast<sockaddr*>(reinterpret_cast<const sockaddr*>(&c.remote)), c.timeout_ms) != 0) {
    connect_failed(channel, ChannelFailure::kAddressError, errno);
  }
}

void VerbsContext::handle_connect_request(rdma_cm_event* event, std::vector<verbs::CmId>& to_destroy) {
  auto* listener = static_cast<VerbsListener*>(event->listen_id->context);
  rdma_cm_id* id = event->id;
  verbs::CmId owned(id);  // ours from now on: the channel's, or destroyed after a reject
  // Refuses with our reason (the client reports it) and tells Java (the server reports it too).
  auto refuse = [&](wire::RejectReason reason, uint32_t detail, uint32_t peer_value) {
    uint8_t data[wire::kRejectSize];
    wire::encode_reject(reason, detail, data);
    owned.reject(data, static_cast<uint8_t>(sizeof data));
    owned->context = nullptr;
    to_destroy.push_back(std::move(owned));  // destroyed after the event is acknowledged
    emit(make_record(EventKind::kIncomingRejected, 0, static_cast<int32_t>(reason), static_cast<int32_t>(peer_value), 0,
                     handle_of(listener)));
  };
  wire::Handshake peer;
  wire::RejectReason reason =
      wire::decode_handshake(event->param.conn.private_data, event->param.conn.private_data_len, &peer);
  if (listener == nullptr || listener->closing) return refuse(wire::RejectReason::kServerClosing, 0, 0);
  if (reason == wire::RejectReason::kVersionMismatch) return refuse(reason, wire::kProtocolVersion, peer.version);
  if (reason != wire::RejectReason::kNone) return refuse(reason, 0, 0);
  if (id->verbs != device_.get()) return refuse(wire::RejectReason::kWrongDevice, 0, 0);
  if (peer.eager != listener->options.engine.eager) {
    return refuse(wire::RejectReason::kEagerMismatch, listener->options.engine.eager, peer.eager);
  }
  // Both ends hold a pre-shared key, or neither: a client that requires authentication must not
  // talk to a server that cannot give it, nor a server that requires it to a client without a key.
  bool we_authenticate = !listener->options.engine.psk.empty();
  if (we_authenticate != ((peer.flags & wire::kFlagAuthenticate) != 0)) {
    return refuse(wire::RejectReason::kAuthMismatch, we_authenticate ? 1 : 0, 0);
  }
  // Every accepted request pins a queue pair and a receive ring until it is established or the
  // connection manager gives up on it: bounded per listener and per context, or anyone who can
  // reach the port could pin the host's memory with requests they never complete. A request
  // waiting for the admission policy counts too.
  uint32_t bound_met = 0;
  PendingPlace place = pending_.take(listener->pending, &bound_met);
  if (!place.held()) return refuse(wire::RejectReason::kTooManyPending, bound_met, 0);
  if (listener->options.admission) {
    try {
      return park_for_admission(listener, std::move(owned), peer, event, std::move(place));
    } catch (const wire::RejectReason& malformed) {
      return refuse(malformed, 0, 0);
    } catch (const std::bad_alloc&) {
      return refuse(wire::RejectReason::kResources, ENOMEM, 0);
    }
  }
  Refusal refusal;
  VerbsChannelEntry* channel = accept_request(listener, owned, peer, &refusal);
  if (channel == nullptr) return refuse(refusal.reason, refusal.detail, refusal.peer_value);
  channel->pending = std::move(place);
  emit(make_record(EventKind::kIncoming, channel->key, 0, 0, handle_of(channel), handle_of(listener)));
}

VerbsChannelEntry* VerbsContext::accept_request(VerbsListener* listener, verbs::CmId& owned,
                                                const wire::Handshake& peer, Refusal* refusal) {
  rdma_cm_id* id = owned.get();
  VerbsChannelEntry* channel = nullptr;
  try {
    channel = add_channel(listener->options, true);
    channel->transport.attach(std::move(owned));
    channel->engine.set_peer(peer);
    channel->transport.create_queue_pair();
    channel->engine.attach(&channel->transport);  // every receive is posted before the peer may send
    channel->transport.ready(peer.mtu, !listener->options.engine.psk.empty());
    uint8_t data[wire::kAcceptWithNonceSize];
    rdma_conn_param param;
    fill_conn_param(&param, *channel, data);
    if (!listener->options.engine.psk.empty()) {
      // A fresh nonce per connection: a proof recorded from another connection does not match.
      uint8_t* nonce = data + wire::kHandshakeSize;
      if (!crypto::random_bytes(nonce, wire::kNonceSize)) throw_errno("getrandom()", errno != 0 ? errno : EIO);
      channel->engine.authenticate(false, nonce);
      param.private_data_len = static_cast<uint8_t>(wire::kAcceptWithNonceSize);
    }
    if (rdma_accept(id, &param) != 0) throw_errno("rdma_accept()", errno);
  } catch (const std::exception& failure) {
    // Anything (bad_alloc included) refuses this request: the id must not be destroyed before its
    // event is acknowledged (rdma_destroy_id would wait for the ack forever), so the caller keeps it.
    if (channel != nullptr) {
      owned = channel->transport.detach();  // the id is rejected and destroyed by the caller, not the channel
      remove_channel(channel).reset();
    }
    const auto* error = dynamic_cast<const RdmaError*>(&failure);
    *refusal = Refusal{wire::RejectReason::kResources, ENOMEM, 0};
    if (error == nullptr) return nullptr;
    if (const auto* refused = dynamic_cast<const AttributeRefused*>(error)) {
      uint32_t detail = static_cast<uint32_t>(refused->attribute) | (std::min<uint32_t>(refused->kept, 0xfff) << 8) |
                        (std::min<uint32_t>(refused->configured, 0xfff) << 20);
      *refusal = Refusal{wire::RejectReason::kAttributeRefused, detail, detail};
    } else if (error->errno_value() == EXDEV) {
      *refusal = Refusal{wire::RejectReason::kWrongPort, listener->options.queue_pair.port, id->port_num};
    } else {
      *refusal = Refusal{wire::RejectReason::kResources, static_cast<uint32_t>(error->errno_value()), 0};
    }
    return nullptr;
  }
  id->context = channel;
  return channel;
}

void VerbsContext::handle_cm_event(rdma_cm_event* event, std::vector<verbs::CmId>& to_destroy) {
  // JRDMA_TRACE_CM=1 prints every connection-manager event (diagnostics; docs/testing.md).
  static const bool trace = std::getenv("JRDMA_TRACE_CM") != nullptr;
  if (trace) {
    std::fprintf(stderr, "jrdma cm: %s status %d id %p context %p\n", rdma_event_str(event->event), event->status,
                 static_cast<void*>(event->id), event->id->context);
  }
  if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST) return handle_connect_request(event, to_destroy);
  if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL && !device_removed_) {
    device_removed_ = true;  // the context learns it from whichever of its ids hears it first
    emit(make_record(EventKind::kDeviceRemoved, 0));
  }
  if (event->id->context == nullptr || event->listen_id != nullptr) return;
  if (is_listener(event->id->context)) return;  // e.g. DEVICE_REMOVAL on a listening id
  VerbsChannelEntry& channel = *static_cast<VerbsChannelEntry*>(event->id->context);
  if (channel.engine.closed()) return;  // closed meanwhile: its id goes with the channel's destroy
  switch (event->event) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
      try {
        apply_id_options(channel.transport.cm_id_owner(), channel.options);
      } catch (const RdmaError& e) {
        connect_failed(channel, ChannelFailure::kSetupError, e.errno_value());
        break;
      }
      if (rdma_resolve_route(event->id, 2000) != 0) connect_failed(channel, ChannelFailure::kRouteError, errno);
      break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
      try {
        if (event->id->verbs != device_.get()) {
          throw RdmaError(ErrorKind::kIllegalArgument,
                          std::string("the address belongs to device ") +
                              ibv_get_device_name(event->id->verbs->device) + ", the context is on " + name_,
                          EINVAL);
        }
        channel.transport.create_queue_pair();
        channel.engine.attach(&channel.transport);
        uint8_t data[wire::kMaxRequestSize] = {};
        rdma_conn_param param;
        fill_conn_param(&param, channel, data);
        if (!channel.connect_data.empty()) {  // for the server's admission policy, after the handshake
          wire::encode_connect_data(channel.connect_data.data(), channel.connect_data.size(),
                                    data + wire::kHandshakeSize);
          param.private_data_len = static_cast<uint8_t>(wire::kHandshakeSize + 1 + channel.connect_data.size());
        }
        if (rdma_connect(event->id, &param) != 0) throw_errno("rdma_connect()", errno);
      } catch (const RdmaError& e) {
        if (e.errno_value() == EXDEV) {
          connect_failed(channel, ChannelFailure::kWrongPort, event->id->port_num);
        } else {
          connect_failed(channel, ChannelFailure::kSetupError, e.errno_value() != 0 ? e.errno_value() : EINVAL);
        }
      }
      break;
    case RDMA_CM_EVENT_CONNECT_RESPONSE: {
      // The queue pair is ours, not rdma_cm's: it goes to RTR and RTS here, with the accept's
      // handshake (the peer's MTU) and our configuration, and then the connection is established.
      wire::Handshake peer;
      wire::RejectReason reason =
          wire::decode_handshake(event->param.conn.private_data, event->param.conn.private_data_len, &peer);
      if (reason != wire::RejectReason::kNone) {
        connect_failed(channel, ChannelFailure::kRejected, 0, reason);
        break;
      }
      if (!channel.options.engine.psk.empty()) {
        if ((peer.flags & wire::kFlagAuthenticate) == 0 ||
            event->param.conn.private_data_len < wire::kAcceptWithNonceSize) {
          connect_failed(channel, ChannelFailure::kAuthFailed, static_cast<int>(AuthFailure::kNotOffered));
          break;
        }
        channel.engine.authenticate(true,
                                    static_cast<const uint8_t*>(event->param.conn.private_data) + wire::kHandshakeSize);
      }
      try {
        // With a key, the client too grants remote access only once the server proved itself.
        channel.transport.ready(peer.mtu, !channel.options.engine.psk.empty());
        if (rdma_establish(event->id) != 0) throw_errno("rdma_establish()", errno);
      } catch (const AttributeRefused& e) {
        channel.engine.abort(ClosedCause::kConnectFailed, static_cast<int32_t>(ChannelFailure::kAttributeRefused),
                             static_cast<int64_t>(e.attribute),
                             static_cast<int64_t>(e.configured) | (static_cast<int64_t>(e.kept) << 32));
        break;
      } catch (const RdmaError& e) {
        connect_failed(channel, ChannelFailure::kSetupError, e.errno_value() != 0 ? e.errno_value() : EINVAL);
        break;
      }
      channel.engine.set_peer(peer);
      channel.engine.open();
      break;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
      // An authenticating channel stays pending until the peer proved the key (tick).
      if (!channel.engine.authenticating()) channel.pending.release();
      channel.engine.open();  // passive side (the active side opened at the connect response)
      break;
    case RDMA_CM_EVENT_REJECTED: {
      wire::RejectReason reason;
      uint32_t detail = 0;
      if (wire::decode_reject(event->param.conn.private_data, event->param.conn.private_data_len, &reason, &detail)) {
        if (reason == wire::RejectReason::kAdmissionRefused) {
          channel.refusal_text =
              wire::decode_refusal_text(event->param.conn.private_data, event->param.conn.private_data_len);
        }
        connect_failed(channel, ChannelFailure::kRejected, event->status, reason, detail);
      } else {
        connect_failed(channel, ChannelFailure::kRefused, event->status);
      }
      break;
    }
    case RDMA_CM_EVENT_ADDR_ERROR:
      connect_failed(channel, ChannelFailure::kAddressError, event->status);
      break;
    case RDMA_CM_EVENT_ROUTE_ERROR:
      connect_failed(channel, ChannelFailure::kRouteError, event->status);
      break;
    case RDMA_CM_EVENT_UNREACHABLE:
      connect_failed(channel, ChannelFailure::kUnreachable, event->status);
      break;
    case RDMA_CM_EVENT_CONNECT_ERROR:
      connect_failed(channel, ChannelFailure::kConnectError, event->status);
      break;
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
      channel.engine.abort(ClosedCause::kDeviceRemoved, 0, ENODEV);
      break;
    case RDMA_CM_EVENT_DISCONNECTED:
      // Messages the peer sent before it closed may wait in the CQ (this event and their completions
      // come through different fds, in either order): deliver them first, then close.
      poll_cq(1 << 20);
      if (!channel.engine.closed()) channel.engine.abort(ClosedCause::kPeerDisconnected);
      break;
    default:
      break;  // TIMEWAIT_EXIT, ADDR_CHANGE, ...: nothing to report
  }
}

void VerbsContext::drain_cm_events() {
  std::vector<verbs::CmId> to_destroy;  // rejected requests: destroyed when this returns, after their acks
  while (rdma_cm_event* event = cm_channel_.next()) {
    try {
      handle_cm_event(event, to_destroy);
    } catch (const std::exception&) {
      // Only allocation can fail here (the handlers turn verbs errors into failed channels); the
      // event is acknowledged regardless, or destroying its id would block forever.
      fail_channel_of(event);
    }
    rdma_ack_cm_event(event);
  }
}

// The channel an event was for cannot go on without what its handling failed to allocate: it
// closes now, so nothing waits for an answer that will not come (a connect request's own paths
// refuse it instead).
void VerbsContext::fail_channel_of(const rdma_cm_event* event) noexcept {
  void* owner = event->id->context;
  if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST || owner == nullptr || event->listen_id != nullptr ||
      is_listener(owner)) {
    return;
  }
  VerbsChannelEntry& channel = *static_cast<VerbsChannelEntry*>(owner);
  try {
    if (channel.engine.closed()) return;
    if (event->event == RDMA_CM_EVENT_DISCONNECTED) {
      channel.engine.abort(ClosedCause::kPeerDisconnected);
    } else {
      connect_failed(channel, ChannelFailure::kSetupError, ENOMEM);
    }
  } catch (const std::exception&) {
    // Reporting the close ran out of memory as well: the engine is closed; Java's connect timeout
    // or operation bounds end what waits for it
  }
}

}  // namespace jrdma
