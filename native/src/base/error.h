// Errors raised by the core. Every failure carries the call that failed and its errno or
// ibv status, so Java can expose them as fields (never an abort, never a bare message).
#pragma once

#include <stdexcept>
#include <string>

namespace jrdma {

// Kinds of failure the JNI layer maps to distinct Java exception types.
enum class ErrorKind {
  kNative,         // a verbs/rdma_cm/system call failed; errno_value() says why
  kConfiguration,  // invalid or ambiguous configuration
  kIllegalArgument,
  kIllegalState,
  kRegistration,  // ibv_reg_mr failed (memlock limit, bad address)
};

class RdmaError : public std::runtime_error {
 public:
  RdmaError(ErrorKind kind, std::string message, int errno_value = 0)
      : std::runtime_error(std::move(message)), kind_(kind), errno_value_(errno_value) {}

  ErrorKind kind() const noexcept { return kind_; }
  int errno_value() const noexcept { return errno_value_; }

 private:
  ErrorKind kind_;
  int errno_value_;
};

// Builds "call(args) failed: ENAME (text)" and throws it as a native error.
[[noreturn]] void throw_errno(const std::string& call, int errno_value);

// "ENOMEM" for ENOMEM; "errno 1234" for an unknown value.
std::string errno_name(int errno_value);

}  // namespace jrdma
