// A fixed-layout record Java wrote into a direct buffer (the settings records), copied out once:
// checked to be a direct buffer of at least the record's size, so a wrong argument is an
// IllegalArgumentException, never a read past the buffer.
#pragma once

#include <jni.h>

#include <cstring>
#include <string>

#include "base/error.h"

namespace jrdma::jni {

template <typename Record>
Record record_of(JNIEnv* env, jobject buffer, const char* what) {
  const void* address = buffer != nullptr ? env->GetDirectBufferAddress(buffer) : nullptr;
  if (address == nullptr || env->GetDirectBufferCapacity(buffer) < static_cast<jlong>(sizeof(Record))) {
    throw RdmaError(ErrorKind::kIllegalArgument,
                    std::string(what) + " are not a direct buffer of " + std::to_string(sizeof(Record)) + " bytes");
  }
  Record record;
  std::memcpy(&record, address, sizeof record);
  return record;
}

}  // namespace jrdma::jni
