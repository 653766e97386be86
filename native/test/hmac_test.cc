// HMAC-SHA256 (OpenSSL's libcrypto, opened at run time) against RFC 4231's test vectors, so the
// authentication of connections rests on a checked primitive.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crypto/crypto.h"

namespace jrdma::crypto {
namespace {

std::string hex(const Digest& d, std::size_t bytes = 32) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < bytes; ++i) {
    s += digits[d[i] >> 4];
    s += digits[d[i] & 15];
  }
  return s;
}

const uint8_t* bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

TEST(HmacSha256, Rfc4231Vectors) {
  std::vector<uint8_t> key1(20, 0x0b);
  std::string hi = "Hi There";
  EXPECT_EQ("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            hex(hmac_sha256(key1.data(), key1.size(), bytes(hi), hi.size())));
  std::string jefe = "Jefe";
  std::string what = "what do ya want for nothing?";
  // Split into parts: the same as one message.
  EXPECT_EQ("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            hex(hmac_sha256(bytes(jefe), jefe.size(), bytes(what), 4, bytes(what) + 4, 10, bytes(what) + 14, 14)));
  std::vector<uint8_t> key6(131, 0xaa);  // longer than a block: hashed first
  std::string large = "Test Using Larger Than Block-Size Key - Hash Key First";
  EXPECT_EQ("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            hex(hmac_sha256(key6.data(), key6.size(), bytes(large), large.size())));
}

TEST(HmacSha256, ConstantTimeCompare) {
  uint8_t a[4] = {1, 2, 3, 4};
  uint8_t b[4] = {1, 2, 3, 5};
  EXPECT_TRUE(equal_in_constant_time(a, a, 4));
  EXPECT_FALSE(equal_in_constant_time(a, b, 4));
  EXPECT_TRUE(equal_in_constant_time(a, b, 3));
}

}  // namespace
}  // namespace jrdma::crypto
