// RegisterNatives tables: one entry macro and one registration helper for every Native* class.
#pragma once

#include <jni.h>

#include <cstddef>

#define JRDMA_NATIVE(name, signature) \
  { const_cast<char*>(#name), const_cast<char*>(signature), reinterpret_cast<void*>(name) }

namespace jrdma::jni {

// Registers `methods` on the named class; false (with a pending Java exception) on failure.
template <std::size_t N>
bool register_natives(JNIEnv* env, const char* class_name, const JNINativeMethod (&methods)[N]) {
  jclass clazz = env->FindClass(class_name);
  if (clazz == nullptr) return false;
  bool ok = env->RegisterNatives(clazz, methods, static_cast<jint>(N)) == 0;
  env->DeleteLocalRef(clazz);
  return ok;
}

}  // namespace jrdma::jni
