#include "crypto/hmac_sha256.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/random.h>

namespace jrdma::crypto {

namespace {
constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

uint32_t rotr(uint32_t x, int n) noexcept { return (x >> n) | (x << (32 - n)); }
}  // namespace

Sha256::Sha256() noexcept
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::block(const uint8_t* p) noexcept {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = static_cast<uint32_t>(p[4 * i]) << 24 | static_cast<uint32_t>(p[4 * i + 1]) << 16 |
           static_cast<uint32_t>(p[4 * i + 2]) << 8 | p[4 * i + 3];
  }
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
  h_[4] += e;
  h_[5] += f;
  h_[6] += g;
  h_[7] += h;
}

void Sha256::update(const uint8_t* data, std::size_t length) noexcept {
  total_ += length;
  while (length > 0) {
    std::size_t n = std::min<std::size_t>(64 - buffered_, length);
    std::memcpy(buffer_ + buffered_, data, n);
    buffered_ += n;
    data += n;
    length -= n;
    if (buffered_ == 64) {
      block(buffer_);
      buffered_ = 0;
    }
  }
}

Digest Sha256::finish() noexcept {
  uint64_t bits = total_ * 8;
  uint8_t pad = 0x80;
  update(&pad, 1);
  uint8_t zero = 0;
  while (buffered_ != 56) update(&zero, 1);
  uint8_t length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
  update(length, 8);
  Digest out;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) out[static_cast<std::size_t>(4 * i + j)] = static_cast<uint8_t>(h_[i] >> (24 - 8 * j));
  }
  return out;
}

Digest hmac_sha256(const uint8_t* key, std::size_t key_length, const uint8_t* a, std::size_t a_length,
                   const uint8_t* b, std::size_t b_length, const uint8_t* c, std::size_t c_length) noexcept {
  uint8_t block_key[64] = {};
  if (key_length > 64) {
    Sha256 hashed;
    hashed.update(key, key_length);
    Digest d = hashed.finish();
    std::memcpy(block_key, d.data(), d.size());
  } else if (key_length > 0) {
    std::memcpy(block_key, key, key_length);
  }
  uint8_t pad[64];
  for (int i = 0; i < 64; ++i) pad[i] = block_key[i] ^ 0x36;
  Sha256 inner;
  inner.update(pad, 64);
  inner.update(a, a_length);
  if (b != nullptr) inner.update(b, b_length);
  if (c != nullptr) inner.update(c, c_length);
  Digest inner_digest = inner.finish();
  for (int i = 0; i < 64; ++i) pad[i] = block_key[i] ^ 0x5c;
  Sha256 outer;
  outer.update(pad, 64);
  outer.update(inner_digest.data(), inner_digest.size());
  std::memset(block_key, 0, sizeof block_key);
  return outer.finish();
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
