// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the pre-shared-key authentication of a
// connection (docs/security.md). Small and self-contained so that libjrdma.so needs no crypto
// library at run time; checked against the RFC 4231 vectors (native/test/hmac_test.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace jrdma::crypto {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256() noexcept;
  void update(const uint8_t* data, std::size_t length) noexcept;
  Digest finish() noexcept;

 private:
  void block(const uint8_t* p) noexcept;
  uint32_t h_[8];
  uint8_t buffer_[64];
  std::size_t buffered_ = 0;
  uint64_t total_ = 0;
};

// HMAC-SHA256 of the concatenation of up to three parts (label, nonce, nonce).
Digest hmac_sha256(const uint8_t* key, std::size_t key_length, const uint8_t* a, std::size_t a_length,
                   const uint8_t* b = nullptr, std::size_t b_length = 0, const uint8_t* c = nullptr,
                   std::size_t c_length = 0) noexcept;

// Fills out with bytes from the kernel's CSPRNG (getrandom); false if it cannot.
bool random_bytes(uint8_t* out, std::size_t length) noexcept;

// Compares without an early exit: the time does not tell how many leading bytes matched.
bool equal_in_constant_time(const uint8_t* a, const uint8_t* b, std::size_t length) noexcept;

}  // namespace jrdma::crypto
