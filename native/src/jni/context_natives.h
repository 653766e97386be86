#pragma once

#include <jni.h>

namespace jrdma::jni {

// Registers the natives of org.jrdma.impl.NativeContext; false with a pending exception on failure.
bool register_context_natives(JNIEnv* env);

}  // namespace jrdma::jni
