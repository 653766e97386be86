#include "base/version.h"

#include <gtest/gtest.h>

#include <cstring>

TEST(Version, MatchesTheBuildVersion) {
  EXPECT_STREQ(JRDMA_VERSION, jrdma::library_version());
  EXPECT_GT(std::strlen(jrdma::library_version()), 0u);
}
