// The security primitives of the pre-shared-key authentication (docs/security.md): HMAC-SHA256
// from OpenSSL's libcrypto, opened at run time as libibverbs is (libcrypto.so.3, else .so.1.1), so
// that libjrdma.so loads without it and only authentication needs it; random bytes from the
// kernel (getrandom). Checked against the RFC 4231 vectors (native/test/hmac_test.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace jrdma::crypto {

using Digest = std::array<uint8_t, 32>;

// Throws RdmaError (kConfiguration) naming the library and the package when libcrypto cannot be
// opened: called where a pre-shared key is configured, before any connection needs it.
void require_hmac();

// HMAC-SHA256 of the concatenation of up to three parts (label, nonce, nonce), at most 256 bytes in
// all. Throws RdmaError as require_hmac(), or when libcrypto fails.
Digest hmac_sha256(const uint8_t* key, std::size_t key_length, const uint8_t* a, std::size_t a_length,
                   const uint8_t* b = nullptr, std::size_t b_length = 0, const uint8_t* c = nullptr,
                   std::size_t c_length = 0);

// Fills out with bytes from the kernel's CSPRNG (getrandom); false if it cannot.
bool random_bytes(uint8_t* out, std::size_t length) noexcept;

// Compares without an early exit: the time does not tell how many leading bytes matched.
bool equal_in_constant_time(const uint8_t* a, const uint8_t* b, std::size_t length) noexcept;

}  // namespace jrdma::crypto
