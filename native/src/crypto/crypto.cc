#include "crypto/crypto.h"

#include <dlfcn.h>
#include <sys/random.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

#include "base/dl_baseline.h"
#include "base/error.h"

namespace jrdma::crypto {
namespace {

// The two calls used; both have these signatures in OpenSSL 1.1 and 3.
using EvpSha256 = const void* (*)();
using Hmac = unsigned char* (*)(const void* md, const void* key, int key_length, const unsigned char* data,
                                std::size_t length, unsigned char* out, unsigned int* out_length);

struct Libcrypto {
  EvpSha256 sha256 = nullptr;
  Hmac hmac = nullptr;
  std::string error;  // empty when loaded
};

Libcrypto load() {
  Libcrypto loaded;
  std::string tried;
  for (const char* name : {"libcrypto.so.3", "libcrypto.so.1.1"}) {
    void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);  // never closed: used as long as the process lives
    if (library == nullptr) {
      const char* why = dlerror();
      tried += std::string(tried.empty() ? "" : "; ") + (why != nullptr ? why : name);
      continue;
    }
    loaded.sha256 = reinterpret_cast<EvpSha256>(dlsym(library, "EVP_sha256"));
    loaded.hmac = reinterpret_cast<Hmac>(dlsym(library, "HMAC"));
    if (loaded.sha256 != nullptr && loaded.hmac != nullptr) return loaded;
    tried += std::string(tried.empty() ? "" : "; ") + name + " has no EVP_sha256/HMAC";
  }
  loaded.error =
      "the pre-shared-key authentication needs OpenSSL's libcrypto (libcrypto.so.3 or libcrypto.so.1.1): " + tried +
      "; install it (Debian/Ubuntu: apt install libssl3; RHEL/Rocky/Fedora: dnf install openssl-libs)";
  return loaded;
}

const Libcrypto& libcrypto() {
  static const Libcrypto loaded = load();
  return loaded;
}

}  // namespace

void require_hmac() {
  if (!libcrypto().error.empty()) throw RdmaError(ErrorKind::kConfiguration, libcrypto().error, ENOENT);
}

Digest hmac_sha256(const uint8_t* key, std::size_t key_length, const uint8_t* a, std::size_t a_length, const uint8_t* b,
                   std::size_t b_length, const uint8_t* c, std::size_t c_length) {
  require_hmac();
  uint8_t message[256];
  std::size_t length = a_length + b_length + c_length;
  if (length > sizeof message || key_length > INT_MAX) {
    throw RdmaError(ErrorKind::kIllegalArgument, "HMAC input of " + std::to_string(length) + " bytes: at most 256");
  }
  if (a_length > 0) std::memcpy(message, a, a_length);
  if (b_length > 0) std::memcpy(message + a_length, b, b_length);
  if (c_length > 0) std::memcpy(message + a_length + b_length, c, c_length);
  Digest digest{};
  unsigned int digest_length = 0;
  static const uint8_t kNoKey = 0;  // HMAC() takes an empty key, but not a null one everywhere
  if (libcrypto().hmac(libcrypto().sha256(), key_length > 0 ? key : &kNoKey, static_cast<int>(key_length), message,
                       length, digest.data(), &digest_length) == nullptr ||
      digest_length != digest.size()) {
    throw RdmaError(ErrorKind::kNative, "OpenSSL's HMAC(SHA-256) failed");
  }
  return digest;
}

bool random_bytes(uint8_t* out, std::size_t length) noexcept {
  while (length > 0) {
    ssize_t n = getrandom(out, length, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
    out += n;
    length -= static_cast<std::size_t>(n);
  }
  return true;
}

bool equal_in_constant_time(const uint8_t* a, const uint8_t* b, std::size_t length) noexcept {
  uint8_t difference = 0;
  for (std::size_t i = 0; i < length; ++i) difference |= static_cast<uint8_t>(a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace jrdma::crypto
