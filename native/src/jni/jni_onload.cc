// JNI entry: registers the native methods of org.jrdma.impl.NativeLibrary. Glue only — each
// method converts arguments, calls the core, and maps failures to exceptions.
#include <jni.h>

#include <string>

#include "core/device_info.h"
#include "core/device_info_format.h"
#include "core/version.h"
#include "jni/channel_natives.h"
#include "jni/context_natives.h"
#include "jni/exceptions.h"

namespace {

constexpr const char* kLibraryClass = "org/jrdma/impl/NativeLibrary";

jstring version0(JNIEnv* env, jclass) {
  return env->NewStringUTF(jrdma::library_version());
}

jstring devices0(JNIEnv* env, jclass) {
  return jrdma::jni::guarded<jstring>(env, nullptr, [&] {
    std::string text = jrdma::format_devices(jrdma::query_devices());
    return env->NewStringUTF(text.c_str());
  });
}

const JNINativeMethod kLibraryMethods[] = {
    {const_cast<char*>("version0"), const_cast<char*>("()Ljava/lang/String;"), reinterpret_cast<void*>(version0)},
    {const_cast<char*>("devices0"), const_cast<char*>("()Ljava/lang/String;"), reinterpret_cast<void*>(devices0)},
};

bool register_class(JNIEnv* env, const char* name, const JNINativeMethod* methods, jint count) {
  jclass clazz = env->FindClass(name);
  if (clazz == nullptr) return false;
  bool ok = env->RegisterNatives(clazz, methods, count) == 0;
  env->DeleteLocalRef(clazz);
  return ok;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) jint JNI_OnLoad(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  if (!jrdma::jni::init_exceptions(env)) {
    jrdma::jni::release_exceptions(env);
    return JNI_ERR;
  }
  if (!register_class(env, kLibraryClass, kLibraryMethods,
                      static_cast<jint>(sizeof kLibraryMethods / sizeof kLibraryMethods[0])) ||
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
