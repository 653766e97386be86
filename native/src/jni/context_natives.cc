// Natives of org.jrdma.impl.NativeContext: open a context over verbs or TCP (jni/context_handle.h)
// and close it, the event loop's wait and wake, memory registration. Glue only.
#include "jni/context_natives.h"

#include <unistd.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "context/channel_memory.h"
#include "context/context_settings.h"
#include "jni/context_handle.h"
#include "jni/exceptions.h"
#include "jni/handles.h"
#include "jni/records.h"
#include "jni/registration.h"

namespace jrdma::jni {

namespace {

// org.jrdma.PollMode's ordinal (EVENT, ADAPTIVE, BUSY); the layout line carries the names.
PollMode poll_mode_of(jint ordinal) {
  if (ordinal < 0 || ordinal > static_cast<int>(PollMode::kBusy)) {
    throw RdmaError(ErrorKind::kIllegalArgument, "poll mode " + std::to_string(ordinal) + " is not 0..2");
  }
  return static_cast<PollMode>(ordinal);
}

ContextHandle* context_of(jlong handle) noexcept { return from_handle<ContextHandle>(handle); }

jlong open0(JNIEnv* env, jclass, jobject settings, jstring device) {
  return guarded<jlong>(env, 0, [&] {
    ContextSettings s = record_of<ContextSettings>(env, settings, "the context settings");
    if (s.transport < static_cast<int32_t>(TransportKind::kAuto) ||
        s.transport > static_cast<int32_t>(TransportKind::kShm)) {
      throw RdmaError(ErrorKind::kIllegalArgument, "transport " + std::to_string(s.transport) + " is not 0..3");
    }
    const char* chars = env->GetStringUTFChars(device, nullptr);
    if (chars == nullptr) throw std::bad_alloc();
    std::string name = chars;
    env->ReleaseStringUTFChars(device, chars);
    ContextOptions options = context_options(s, std::move(name));
    auto transport = static_cast<TransportKind>(s.transport);
    if (transport == TransportKind::kVerbs) return to_handle(open_verbs_context(options).release());
    return to_handle(open_tcp_context(options, transport).release());
  });
}

void close0(JNIEnv* env, jclass, jlong handle) {
  guarded<int>(env, 0, [&] {
    std::unique_ptr<ContextHandle> context(context_of(handle));
    std::string failures = context->close();
    if (!failures.empty()) throw RdmaError(ErrorKind::kNative, "closing the context: " + failures, 0);
    return 0;
  });
}

jint cqCapacity0(JNIEnv*, jclass, jlong handle) { return context_of(handle)->cq_capacity(); }

jint cqResizes0(JNIEnv*, jclass, jlong handle) { return context_of(handle)->cq_resizes(); }

jint waitEvents0(JNIEnv* env, jclass, jlong handle, jlong records_address, jint capacity, jint timeout_ms,
                 jint poll_mode) {
  return guarded<jint>(env, -1, [&] {
    auto* records = reinterpret_cast<EventRecord*>(static_cast<uintptr_t>(records_address));
    return context_of(handle)->wait_events(records, capacity, timeout_ms, poll_mode_of(poll_mode));
  });
}

void wake0(JNIEnv* env, jclass, jlong handle) {
  guarded<int>(env, 0, [&] {
    context_of(handle)->wake();
    return 0;
  });
}

// Registers [address, address + length); the Java side has checked the range against its buffer.
jlong register0(JNIEnv* env, jclass, jlong handle, jlong address, jlong length, jint access) {
  return guarded<jlong>(env, 0, [&] {
    auto region = context_of(handle)->register_memory(reinterpret_cast<void*>(static_cast<uintptr_t>(address)),
                                                      static_cast<std::size_t>(length), access);
    return to_handle(region.release());
  });
}

jint lkey0(JNIEnv*, jclass, jlong region) { return static_cast<jint>(from_handle<Registration>(region)->lkey()); }

jint rkey0(JNIEnv*, jclass, jlong region) { return static_cast<jint>(from_handle<Registration>(region)->rkey()); }

void deregister0(JNIEnv* env, jclass, jlong region) {
  guarded<int>(env, 0, [&] {
    std::unique_ptr<Registration> owned(from_handle<Registration>(region));
    if (int rc = owned->release(); rc != 0) throw_errno("deregistering memory", rc);
    return 0;
  });
}

// Memory for the Java buffer pool's slabs: aligned anonymous mappings from channel_memory.h, never
// unmapped (a view a program kept must not point at unmapped memory), outside the JVM's
// direct-memory accounting and not zero-filled up front (allocateDirect wrote every byte of a slab).
jobject allocatePages0(JNIEnv* env, jclass, jlong length) {
  jobject buffer = nullptr;
  guarded<int>(env, 0, [&] {
    if (length <= 0 || length > std::numeric_limits<jint>::max()) {
      throw RdmaError(ErrorKind::kIllegalArgument, "pages of " + std::to_string(length) + " bytes");
    }
    ChannelMemory memory = allocate_pool_pages(static_cast<std::size_t>(length));
    buffer = env->NewDirectByteBuffer(memory.base, length);
    if (buffer == nullptr) free_pool_pages(memory);  // an OutOfMemoryError is pending
    return 0;
  });
  return buffer;
}

// Gives allocatePages0's pages back (their memory to the system, their addresses kept for reuse);
// no registration may cover them any more.
void freePages0(JNIEnv* env, jclass, jlong address, jlong length) {
  guarded<int>(env, 0, [&] {
    auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    auto start = static_cast<uint64_t>(address);
    if (start == 0 || length <= 0 || start % page != 0) {
      throw RdmaError(ErrorKind::kIllegalArgument, "freeing " + std::to_string(length) + " bytes at " +
                                                       std::to_string(start) + ": not pages of allocatePages0");
    }
    free_pool_pages(
        ChannelMemory{reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(start)), static_cast<std::size_t>(length)});
    return 0;
  });
}

// The address of a direct ByteBuffer (Java cannot read it without internal APIs).
jlong address0(JNIEnv* env, jclass, jobject buffer) {
  void* address = env->GetDirectBufferAddress(buffer);
  if (address == nullptr) {
    throw_rdma_error(env, RdmaError(ErrorKind::kIllegalArgument, "not a direct ByteBuffer"));  // cached class
    return 0;
  }
  return static_cast<jlong>(reinterpret_cast<uintptr_t>(address));
}

const JNINativeMethod kContextMethods[] = {
    JRDMA_NATIVE(open0, "(Ljava/nio/ByteBuffer;Ljava/lang/String;)J"),
    JRDMA_NATIVE(close0, "(J)V"),
    JRDMA_NATIVE(cqCapacity0, "(J)I"),
    JRDMA_NATIVE(cqResizes0, "(J)I"),
    JRDMA_NATIVE(waitEvents0, "(JJIII)I"),
    JRDMA_NATIVE(wake0, "(J)V"),
    JRDMA_NATIVE(register0, "(JJJI)J"),
    JRDMA_NATIVE(lkey0, "(J)I"),
    JRDMA_NATIVE(rkey0, "(J)I"),
    JRDMA_NATIVE(deregister0, "(J)V"),
    JRDMA_NATIVE(address0, "(Ljava/nio/ByteBuffer;)J"),
    JRDMA_NATIVE(allocatePages0, "(J)Ljava/nio/ByteBuffer;"),
    JRDMA_NATIVE(freePages0, "(JJ)V"),
};

}  // namespace

bool register_context_natives(JNIEnv* env) {
  return register_natives(env, "org/jrdma/impl/NativeContext", kContextMethods);
}

}  // namespace jrdma::jni
