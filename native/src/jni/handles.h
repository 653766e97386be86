// Native objects cross JNI as jlong handles (the pointer). Java owns each handle exactly once
// (closed by a CAS, operations hold a use count), so a handle that reaches native code is live.
#pragma once

#include <jni.h>

#include <cstdint>

namespace jrdma::jni {

template <typename T>
T* from_handle(jlong handle) noexcept {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(handle));
}

template <typename T>
jlong to_handle(T* object) noexcept {
  return static_cast<jlong>(reinterpret_cast<uintptr_t>(object));
}

}  // namespace jrdma::jni
