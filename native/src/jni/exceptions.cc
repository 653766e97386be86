#include "jni/exceptions.h"

namespace jrdma::jni {

namespace {

// Global references, created once in JNI_OnLoad.
jclass g_rdma_exception = nullptr;           // org.jrdma.RdmaException(String, int errno)
jclass g_configuration_exception = nullptr;  // org.jrdma.ConfigurationException(String)
jclass g_registration_exception = nullptr;   // org.jrdma.RegistrationException(String, int errno)
jmethodID g_registration_exception_ctor = nullptr;
jclass g_illegal_argument = nullptr;
jclass g_illegal_state = nullptr;
jclass g_out_of_memory = nullptr;
jmethodID g_rdma_exception_ctor = nullptr;

jclass global_class(JNIEnv* env, const char* name) {
  jclass local = env->FindClass(name);
  if (local == nullptr) return nullptr;
  auto global = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  return global;
}

}  // namespace

bool init_exceptions(JNIEnv* env) {
  g_rdma_exception = global_class(env, "org/jrdma/RdmaException");
  g_configuration_exception = global_class(env, "org/jrdma/ConfigurationException");
  g_registration_exception = global_class(env, "org/jrdma/RegistrationException");
  g_illegal_argument = global_class(env, "java/lang/IllegalArgumentException");
  g_illegal_state = global_class(env, "java/lang/IllegalStateException");
  g_out_of_memory = global_class(env, "java/lang/OutOfMemoryError");
  if (!g_rdma_exception || !g_configuration_exception || !g_registration_exception || !g_illegal_argument ||
      !g_illegal_state || !g_out_of_memory) {
    return false;
  }
  g_rdma_exception_ctor = env->GetMethodID(g_rdma_exception, "<init>", "(Ljava/lang/String;I)V");
  g_registration_exception_ctor = env->GetMethodID(g_registration_exception, "<init>", "(Ljava/lang/String;I)V");
  return g_rdma_exception_ctor != nullptr && g_registration_exception_ctor != nullptr;
}

void release_exceptions(JNIEnv* env) {
  for (jclass* c : {&g_rdma_exception, &g_configuration_exception, &g_registration_exception, &g_illegal_argument,
                    &g_illegal_state, &g_out_of_memory}) {
    if (*c != nullptr) env->DeleteGlobalRef(*c);
    *c = nullptr;
  }
}

bool throw_rdma_error(JNIEnv* env, const RdmaError& error) {
  switch (error.kind()) {
    case ErrorKind::kConfiguration:
      return env->ThrowNew(g_configuration_exception, error.what()) == 0;
    case ErrorKind::kIllegalArgument:
      return env->ThrowNew(g_illegal_argument, error.what()) == 0;
    case ErrorKind::kIllegalState:
      return env->ThrowNew(g_illegal_state, error.what()) == 0;
    case ErrorKind::kNative:
    case ErrorKind::kRegistration:
      break;
  }
  const bool registration = error.kind() == ErrorKind::kRegistration;
  jstring message = env->NewStringUTF(error.what());
  if (message == nullptr) return true;  // OutOfMemoryError already pending
  auto exception =
      static_cast<jthrowable>(env->NewObject(registration ? g_registration_exception : g_rdma_exception,
                                             registration ? g_registration_exception_ctor : g_rdma_exception_ctor,
                                             message, static_cast<jint>(error.errno_value())));
  env->DeleteLocalRef(message);
  if (exception == nullptr) return true;  // the constructor's own exception is pending
  bool thrown = env->Throw(exception) == 0;
  env->DeleteLocalRef(exception);
  return thrown;
}

bool throw_out_of_memory(JNIEnv* env, const char* what) { return env->ThrowNew(g_out_of_memory, what) == 0; }

bool throw_internal(JNIEnv* env, const char* what) { return env->ThrowNew(g_illegal_state, what) == 0; }

}  // namespace jrdma::jni
