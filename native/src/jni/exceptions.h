// Maps C++ failures to Java exceptions. No C++ exception and no abort ever crosses JNI: every
// entry point runs its body through guarded(), which converts whatever was thrown.
#pragma once

#include <jni.h>

#include <exception>
#include <new>

#include "base/error.h"

namespace jrdma::jni {

// Caches the exception classes; called from JNI_OnLoad. Returns false (with a pending Java
// exception) when a class is missing, which means the jar and the library do not match.
bool init_exceptions(JNIEnv* env);
void release_exceptions(JNIEnv* env);

// Each returns true when it raised an exception (false only if even that failed).
bool throw_rdma_error(JNIEnv* env, const RdmaError& error);
bool throw_out_of_memory(JNIEnv* env, const char* what);
bool throw_internal(JNIEnv* env, const char* what);

template <typename R, typename Body>
R guarded(JNIEnv* env, R fallback, Body&& body) noexcept {
  try {
    return body();
  } catch (const RdmaError& e) {
    throw_rdma_error(env, e);
  } catch (const std::bad_alloc&) {
    // A JNI call that failed to allocate (GetStringUTFChars) has an OutOfMemoryError pending
    // already; raising another while one is pending is not allowed.
    if (!env->ExceptionCheck()) throw_out_of_memory(env, "native allocation failed");
  } catch (const std::exception& e) {
    throw_internal(env, e.what());
  } catch (...) {
    throw_internal(env, "unknown native exception");
  }
  return fallback;
}

}  // namespace jrdma::jni
