#pragma once

#include <jni.h>

namespace jrdma::jni {

// Registers the natives of org.jrdma.impl.NativeChannel; false with a pending exception on failure.
bool register_channel_natives(JNIEnv* env);

}  // namespace jrdma::jni
