// JNI entry: registers the native methods of org.jrdma.impl.NativeLibrary. Glue only — each
// method converts arguments, calls the core, and maps failures to exceptions.
#include <jni.h>

#include <string>

#include "base/version.h"
#include "jni/channel_natives.h"
#include "jni/context_natives.h"
#include "jni/exceptions.h"
#include "jni/layout.h"
#include "jni/registration.h"
#include "transports/verbs/device_info.h"
#include "transports/verbs/device_info_format.h"

namespace {

constexpr const char* kLibraryClass = "org/jrdma/impl/NativeLibrary";

jstring version0(JNIEnv* env, jclass) { return env->NewStringUTF(jrdma::library_version()); }

jstring devices0(JNIEnv* env, jclass) {
  return jrdma::jni::guarded<jstring>(env, nullptr, [&] {
    std::string text = jrdma::format_devices(jrdma::query_devices());
    return env->NewStringUTF(text.c_str());
  });
}

// The record layouts this library was built with (protocol/layout.h); checked by Java at load.
jstring layout0(JNIEnv* env, jclass) { return env->NewStringUTF(jrdma::cross_language_layout().c_str()); }

const JNINativeMethod kLibraryMethods[] = {
    JRDMA_NATIVE(version0, "()Ljava/lang/String;"),
    JRDMA_NATIVE(layout0, "()Ljava/lang/String;"),
    JRDMA_NATIVE(devices0, "()Ljava/lang/String;"),
};

}  // namespace

extern "C" __attribute__((visibility("default"))) jint JNI_OnLoad(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  if (!jrdma::jni::init_exceptions(env)) {
    jrdma::jni::release_exceptions(env);
    return JNI_ERR;
  }
  if (!jrdma::jni::register_natives(env, kLibraryClass, kLibraryMethods) ||
      !jrdma::jni::register_context_natives(env) || !jrdma::jni::register_channel_natives(env)) {
    jrdma::jni::release_exceptions(env);
    return JNI_ERR;
  }
  return JNI_VERSION_1_8;
}

extern "C" __attribute__((visibility("default"))) void JNI_OnUnload(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) == JNI_OK) jrdma::jni::release_exceptions(env);
}
