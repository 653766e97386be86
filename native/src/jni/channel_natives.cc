// Natives of org.jrdma.impl.NativeChannel: listeners, connection set-up, posting. Glue only:
// postBatch0 is the hot path (one JNI call per batch of work requests, primitives only).
#include "jni/channel_natives.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <string>

#include "core/context.h"
#include "jni/exceptions.h"
#include "jni/handles.h"
#include "jni/registration.h"

namespace jrdma::jni {

namespace {

sockaddr_storage parse_address(JNIEnv* env, jstring ip, jint port) {
  const char* chars = env->GetStringUTFChars(ip, nullptr);
  if (chars == nullptr) throw std::bad_alloc();
  std::string text(chars);
  env->ReleaseStringUTFChars(ip, chars);
  if (port < 0 || port > 65535) throw RdmaError(ErrorKind::kIllegalArgument, "port out of range: " + std::to_string(port));
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
  } else if (inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
  } else {
    throw RdmaError(ErrorKind::kIllegalArgument, "not an IP address: " + text);
  }
  return storage;
}

ChannelOptions channel_options(jint depth, jint eager, jint max_inline, jint timeout, jint retry, jint rnr) {
  ChannelOptions o;
  o.depth = static_cast<uint32_t>(depth);
  o.eager = static_cast<uint32_t>(eager);
  o.max_inline = static_cast<uint32_t>(max_inline);
  o.timeout = static_cast<uint8_t>(timeout);
  o.retry_count = static_cast<uint8_t>(retry);
  o.rnr_retry = static_cast<uint8_t>(rnr);
  return o;
}

jlong listen0(JNIEnv* env, jclass, jlong context, jstring ip, jint port, jint backlog, jint depth, jint eager,
              jint max_inline, jint timeout, jint retry, jint rnr) {
  return guarded<jlong>(env, 0, [&] {
    sockaddr_storage address = parse_address(env, ip, port);
    Listener* listener = from_handle<Context>(context)->listen(reinterpret_cast<sockaddr*>(&address),
                                                               channel_options(depth, eager, max_inline, timeout, retry, rnr),
                                                               backlog);
    return to_handle(listener);
  });
}

jint listenerPort0(JNIEnv*, jclass, jlong listener) {
  return ntohs(rdma_get_src_port(from_handle<Listener>(listener)->id));
}

void closeListener0(JNIEnv* env, jclass, jlong context, jlong listener) {
  guarded<int>(env, 0, [&] {
    from_handle<Listener>(listener)->closing = true;
    from_handle<Context>(context)->close_listener(from_handle<Listener>(listener));
    return 0;
  });
}

jlong createChannel0(JNIEnv* env, jclass, jlong context, jint depth, jint eager, jint max_inline, jint timeout, jint retry,
                     jint rnr) {
  return guarded<jlong>(env, 0, [&] {
    return to_handle(
        from_handle<Context>(context)->create_channel(channel_options(depth, eager, max_inline, timeout, retry, rnr)));
  });
}

void connect0(JNIEnv* env, jclass, jlong context, jlong channel, jstring ip, jint port, jstring local_ip, jint timeout_ms) {
  guarded<int>(env, 0, [&] {
    sockaddr_storage remote = parse_address(env, ip, port);
    sockaddr_storage local{};
    if (local_ip != nullptr) local = parse_address(env, local_ip, 0);
    from_handle<Context>(context)->connect(from_handle<Channel>(channel), remote, local_ip != nullptr ? &local : nullptr,
                                           timeout_ms);
    return 0;
  });
}

// A channel created but never connected (the address was invalid): nothing else knows it.
void discard0(JNIEnv*, jclass, jlong channel) { delete from_handle<Channel>(channel); }

void accept0(JNIEnv* env, jclass, jlong context, jlong channel, jlong address, jint lkey) {
  guarded<int>(env, 0, [&] {
    from_handle<Context>(context)->accept(from_handle<Channel>(channel), static_cast<uint64_t>(address),
                                          static_cast<uint32_t>(lkey));
    return 0;
  });
}

void continueConnect0(JNIEnv* env, jclass, jlong context, jlong channel, jlong address, jint lkey) {
  guarded<int>(env, 0, [&] {
    from_handle<Context>(context)->continue_connect(from_handle<Channel>(channel), static_cast<uint64_t>(address),
                                                    static_cast<uint32_t>(lkey));
    return 0;
  });
}

void reject0(JNIEnv* env, jclass, jlong context, jlong channel, jint reason) {
  guarded<int>(env, 0, [&] {
    from_handle<Context>(context)->reject(from_handle<Channel>(channel), static_cast<wire::RejectReason>(reason), 0);
    return 0;
  });
}

void disconnect0(JNIEnv*, jclass, jlong channel) { from_handle<Channel>(channel)->disconnect(); }

void destroy0(JNIEnv* env, jclass, jlong context, jlong channel) {
  guarded<int>(env, 0, [&] {
    from_handle<Context>(context)->destroy_channel(from_handle<Channel>(channel));
    return 0;
  });
}

// The posting hot path: the receive buffers Java freed are re-posted first (their credits may
// travel in the headers of the sends that follow), then every queued work request in one chain.
void postBatch0(JNIEnv* env, jclass, jlong channel, jlong requests, jint count, jlong repost_slots, jint repost_count) {
  guarded<int>(env, 0, [&] {
    Channel* c = from_handle<Channel>(channel);
    if (repost_count > 0) {
      c->repost_receives(reinterpret_cast<const int32_t*>(static_cast<uintptr_t>(repost_slots)), repost_count);
    }
    if (count > 0) {
      c->post_batch(reinterpret_cast<const WorkRequestDescriptor*>(static_cast<uintptr_t>(requests)), count);
    }
    return 0;
  });
}

const JNINativeMethod kChannelMethods[] = {
    JRDMA_NATIVE(listen0, "(JLjava/lang/String;IIIIIIII)J"),
    JRDMA_NATIVE(listenerPort0, "(J)I"),
    JRDMA_NATIVE(closeListener0, "(JJ)V"),
    JRDMA_NATIVE(createChannel0, "(JIIIIII)J"),
    JRDMA_NATIVE(connect0, "(JJLjava/lang/String;ILjava/lang/String;I)V"),
    JRDMA_NATIVE(discard0, "(J)V"),
    JRDMA_NATIVE(accept0, "(JJJI)V"),
    JRDMA_NATIVE(continueConnect0, "(JJJI)V"),
    JRDMA_NATIVE(reject0, "(JJI)V"),
    JRDMA_NATIVE(disconnect0, "(J)V"),
    JRDMA_NATIVE(destroy0, "(JJ)V"),
    JRDMA_NATIVE(postBatch0, "(JJIJI)V"),
};

}  // namespace

bool register_channel_natives(JNIEnv* env) {
  return register_natives(env, "org/jrdma/impl/NativeChannel", kChannelMethods);
}

}  // namespace jrdma::jni
