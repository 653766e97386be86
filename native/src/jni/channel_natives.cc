// Natives of org.jrdma.impl.NativeChannel: listeners, channel set-up and teardown, and the hot
// path submit0 (one JNI call per batch of submissions, primitives only). Glue only: the protocol
// is in the channel's engine (protocol/channel_engine.h).
#include "jni/channel_natives.h"

#include <string>

#include "base/socket_address.h"
#include "crypto/crypto.h"
#include "jni/context_handle.h"
#include "jni/exceptions.h"
#include "jni/handles.h"
#include "jni/records.h"
#include "jni/registration.h"
#include "protocol/channel_settings.h"

namespace jrdma::jni {

namespace {

ContextHandle* context_of(jlong handle) noexcept { return from_handle<ContextHandle>(handle); }

// A Java byte[] holding those bytes; null with an OutOfMemoryError pending.
jbyteArray byte_array(JNIEnv* env, const void* data, std::size_t size) {
  jbyteArray array = env->NewByteArray(static_cast<jsize>(size));
  if (array == nullptr) return nullptr;
  env->SetByteArrayRegion(array, 0, static_cast<jsize>(size), static_cast<const jbyte*>(data));
  return array;
}
jbyteArray byte_array(JNIEnv* env, const std::string& text) { return byte_array(env, text.data(), text.size()); }

sockaddr_storage parse_address(JNIEnv* env, jstring ip, jint port) {
  const char* chars = env->GetStringUTFChars(ip, nullptr);
  if (chars == nullptr) throw std::bad_alloc();
  std::string text(chars);
  env->ReleaseStringUTFChars(ip, chars);
  return parse_socket_address(text, port);
}

// The options of a context's channels from Java's settings record (protocol/channel_settings.h)
// and its pre-shared key (null: none).
ChannelOptions channel_options(JNIEnv* env, jobject settings_buffer, jbyteArray psk) {
  ChannelSettings s = record_of<ChannelSettings>(env, settings_buffer, "the channel settings");
  ChannelOptions o;
  o.engine = engine_options(s);
  if (psk != nullptr) {      // the key stays in native memory only as long as the options that use it
    crypto::require_hmac();  // a missing libcrypto is a configuration error now, not a failed connect later
    o.engine.psk.resize(static_cast<std::size_t>(env->GetArrayLength(psk)));
    env->GetByteArrayRegion(psk, 0, static_cast<jsize>(o.engine.psk.size()),
                            reinterpret_cast<jbyte*>(o.engine.psk.data()));
  }
  o.queue_pair = queue_pair_options(s);
  o.max_pending = s.max_pending;
  return o;
}

jlong listen0(JNIEnv* env, jclass, jlong context, jstring ip, jint ip_port, jint backlog, jboolean admission,
              jobject settings, jbyteArray psk) {
  return guarded<jlong>(env, 0, [&] {
    sockaddr_storage address = parse_address(env, ip, ip_port);
    ChannelOptions options = channel_options(env, settings, psk);
    options.admission = admission == JNI_TRUE;
    return context_of(context)->listen(address, options, backlog);
  });
}

jint listenerPort0(JNIEnv* env, jclass, jlong context, jlong listener) {
  return guarded<jint>(env, -1, [&] { return context_of(context)->listener_port(listener); });
}

void closeListener0(JNIEnv* env, jclass, jlong context, jlong listener) {
  guarded<int>(env, 0, [&] {
    context_of(context)->close_listener(listener);
    return 0;
  });
}

jlong createChannel0(JNIEnv* env, jclass, jlong context, jobject settings, jbyteArray psk) {
  return guarded<jlong>(env, 0,
                        [&] { return context_of(context)->create_channel(channel_options(env, settings, psk)); });
}

// The link as the transport sees it: over verbs the queue pair's attributes as the device reports
// them (diagnostics, and the tests' proof that the configuration reached the queue pair).
jstring queuePair0(JNIEnv* env, jclass, jlong context, jlong channel) {
  return guarded<jstring>(env, nullptr,
                          [&] { return env->NewStringUTF(context_of(context)->describe_link(channel).c_str()); });
}

jint key0(JNIEnv*, jclass, jlong context, jlong channel) {
  return static_cast<jint>(context_of(context)->engine(channel).key());
}

// This end's (local) or the peer's address of a connected (or accepting) channel as "ip port", or
// null before there is one.
jstring address0(JNIEnv* env, jclass, jlong context, jlong channel, jboolean local) {
  return guarded<jstring>(env, nullptr, [&]() -> jstring {
    std::string text = context_of(context)->address(channel, local == JNI_TRUE);
    return text.empty() ? nullptr : env->NewStringUTF(text.c_str());
  });
}

// The receive ring as a direct buffer: Java's messages are read-only views of its slots. The
// memory outlives the channel (context/channel_memory.h), so a view kept too long reads zeros.
jobject ring0(JNIEnv* env, jclass, jlong context, jlong channel) {
  ChannelMemory ring = context_of(context)->ring(channel);
  return env->NewDirectByteBuffer(ring.base, static_cast<jlong>(ring.size));
}

void connect0(JNIEnv* env, jclass, jlong context, jlong channel, jstring ip, jint port, jstring local_ip,
              jint timeout_ms, jbyteArray connect_data) {
  guarded<int>(env, 0, [&] {
    sockaddr_storage remote = parse_address(env, ip, port);
    std::vector<uint8_t> data;
    if (connect_data != nullptr) {
      jsize n = env->GetArrayLength(connect_data);
      if (n < 0 || static_cast<std::size_t>(n) > wire::kMaxConnectData) {
        throw RdmaError(ErrorKind::kIllegalArgument, "connect data of " + std::to_string(n) + " bytes; at most " +
                                                         std::to_string(wire::kMaxConnectData));
      }
      data.resize(static_cast<std::size_t>(n));
      env->GetByteArrayRegion(connect_data, 0, n, reinterpret_cast<jbyte*>(data.data()));
    }
    sockaddr_storage local{};
    if (local_ip != nullptr) local = parse_address(env, local_ip, 0);
    context_of(context)->connect(channel, remote, local_ip != nullptr ? &local : nullptr, timeout_ms, std::move(data));
    return 0;
  });
}

// The posting hot path: a batch of 64-byte Submission records (operations and receive releases).
void submit0(JNIEnv* env, jclass, jlong context, jlong channel, jlong submissions, jint count) {
  guarded<int>(env, 0, [&] {
    context_of(context)->engine(channel).submit(
        reinterpret_cast<const Submission*>(static_cast<uintptr_t>(submissions)), count);
    return 0;
  });
}

void close0(JNIEnv* env, jclass, jlong context, jlong channel) {
  guarded<int>(env, 0, [&] {
    context_of(context)->engine(channel).close();
    return 0;
  });
}

void abort0(JNIEnv* env, jclass, jlong context, jlong channel) {
  guarded<int>(env, 0, [&] {
    context_of(context)->engine(channel).abort(ClosedCause::kLocal);
    return 0;
  });
}

jstring describe0(JNIEnv* env, jclass, jlong context, jlong channel) {
  return guarded<jstring>(env, nullptr,
                          [&] { return env->NewStringUTF(context_of(context)->engine(channel).describe().c_str()); });
}

// The channel's counters in protocol/channel_counters.h's order (null with a pending exception on failure).
jlongArray counters0(JNIEnv* env, jclass, jlong context, jlong channel) {
  return guarded<jlongArray>(env, nullptr, [&]() -> jlongArray {
    ChannelCounters counters = context_of(context)->engine(channel).counters();
    jsize n = static_cast<jsize>(counters.values().size());
    jlongArray array = env->NewLongArray(n);
    if (array == nullptr) return nullptr;  // OutOfMemoryError pending
    std::array<jlong, static_cast<int>(Counter::kCount)> values;
    for (jsize i = 0; i < n; ++i)
      values[static_cast<std::size_t>(i)] = static_cast<jlong>(counters.values()[static_cast<std::size_t>(i)]);
    env->SetLongArrayRegion(array, 0, n, values.data());
    return array;
  });
}

void destroy0(JNIEnv* env, jclass, jlong context, jlong channel) {
  guarded<int>(env, 0, [&] {
    context_of(context)->destroy_channel(channel);
    return 0;
  });
}

// ---- admission: loop thread only, while Java handles the kAdmissionRequest record ----------------

jstring admissionPeer0(JNIEnv* env, jclass, jlong context, jlong request) {
  return guarded<jstring>(env, nullptr, [&] {
    return env->NewStringUTF(context_of(context)->admission_request(request).peer_address.c_str());
  });
}

jbyteArray admissionData0(JNIEnv* env, jclass, jlong context, jlong request) {
  return guarded<jbyteArray>(env, nullptr, [&] {
    const std::vector<uint8_t>& data = context_of(context)->admission_request(request).data;
    return byte_array(env, data.data(), data.size());
  });
}

void decide0(JNIEnv* env, jclass, jlong context, jlong request, jboolean accept, jint code, jbyteArray text) {
  guarded<int>(env, 0, [&] {
    std::string reason;
    if (text != nullptr) {
      reason.resize(static_cast<std::size_t>(env->GetArrayLength(text)));
      env->GetByteArrayRegion(text, 0, static_cast<jsize>(reason.size()), reinterpret_cast<jbyte*>(reason.data()));
    }
    context_of(context)->decide(request, accept == JNI_TRUE, static_cast<uint32_t>(code), reason);
    return 0;
  });
}

// The text of the admission refusal that closed this client channel (empty if none). Bytes from the
// peer: Java decodes them (NewStringUTF would trust them to be modified UTF-8).
jbyteArray refusalText0(JNIEnv* env, jclass, jlong context, jlong channel) {
  return guarded<jbyteArray>(env, nullptr, [&] { return byte_array(env, context_of(context)->refusal_text(channel)); });
}

// Why the transport ended this channel, in its own words (empty if it has none): our text, which may
// quote the system's (strerror), so it crosses as UTF-8 bytes too.
jbyteArray failureText0(JNIEnv* env, jclass, jlong context, jlong channel) {
  return guarded<jbyteArray>(env, nullptr, [&] { return byte_array(env, context_of(context)->failure_text(channel)); });
}

const JNINativeMethod kChannelMethods[] = {
    JRDMA_NATIVE(listen0, "(JLjava/lang/String;IIZLjava/nio/ByteBuffer;[B)J"),
    JRDMA_NATIVE(admissionPeer0, "(JJ)Ljava/lang/String;"),
    JRDMA_NATIVE(admissionData0, "(JJ)[B"),
    JRDMA_NATIVE(decide0, "(JJZI[B)V"),
    JRDMA_NATIVE(refusalText0, "(JJ)[B"),
    JRDMA_NATIVE(failureText0, "(JJ)[B"),
    JRDMA_NATIVE(listenerPort0, "(JJ)I"),
    JRDMA_NATIVE(closeListener0, "(JJ)V"),
    JRDMA_NATIVE(createChannel0, "(JLjava/nio/ByteBuffer;[B)J"),
    JRDMA_NATIVE(queuePair0, "(JJ)Ljava/lang/String;"),
    JRDMA_NATIVE(key0, "(JJ)I"),
    JRDMA_NATIVE(address0, "(JJZ)Ljava/lang/String;"),
    JRDMA_NATIVE(ring0, "(JJ)Ljava/nio/ByteBuffer;"),
    JRDMA_NATIVE(connect0, "(JJLjava/lang/String;ILjava/lang/String;I[B)V"),
    JRDMA_NATIVE(submit0, "(JJJI)V"),
    JRDMA_NATIVE(close0, "(JJ)V"),
    JRDMA_NATIVE(abort0, "(JJ)V"),
    JRDMA_NATIVE(describe0, "(JJ)Ljava/lang/String;"),
    JRDMA_NATIVE(counters0, "(JJ)[J"),
    JRDMA_NATIVE(destroy0, "(JJ)V"),
};

}  // namespace

bool register_channel_natives(JNIEnv* env) {
  return register_natives(env, "org/jrdma/impl/NativeChannel", kChannelMethods);
}

}  // namespace jrdma::jni
