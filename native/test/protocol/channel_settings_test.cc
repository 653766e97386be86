// The channel settings record (protocol/channel_settings.h): its layout line, which Java's
// ChannelSettings must match at load, and the engine options every transport's channels get from it.
#include "protocol/channel_settings.h"

#include <gtest/gtest.h>

namespace jrdma {
namespace {

TEST(ChannelSettings, TheLayoutLineNamesEveryFieldAtItsOffset) {
  std::string layout = channel_settings_layout();
  EXPECT_EQ(0u, layout.find("settings size=96,depth=0,eager=4,max_message=8,")) << layout;
  EXPECT_NE(std::string::npos, layout.find(",agent_quota_bytes=32,")) << layout;
  EXPECT_NE(std::string::npos, layout.find(",graceful_close_ms=48,read_chunk=52,max_inline=56,")) << layout;
}

TEST(ChannelSettings, EveryTransportsEngineGetsTheNeutralPart) {
  ChannelSettings s{};
  s.depth = 32;
  s.eager = 8192;
  s.max_message = 1u << 20;
  s.rendezvous = 3;
  s.keepalive_ms = 5000;
  s.operation_timeout_ms = 7000;
  s.agent_timeout_ms = 2000;
  s.agent_quota_bytes = 5ull << 30;
  s.agent_quota_count = 9;
  s.auth_timeout_ms = 4000;
  s.graceful_close_ms = 3000;
  s.read_chunk = 65536;
  EngineOptions e = engine_options(s);
  EXPECT_EQ(32u, e.depth);
  EXPECT_EQ(8192u, e.eager);
  EXPECT_EQ(1u << 20, e.max_message);
  EXPECT_EQ(3u, e.rendezvous);
  EXPECT_EQ(5000u, e.keepalive_ms);
  EXPECT_EQ(7000u, e.operation_timeout_ms);
  EXPECT_EQ(2000u, e.agent_timeout_ms);
  EXPECT_EQ(5ull << 30, e.agent_quota_bytes);
  EXPECT_EQ(9u, e.agent_quota_count);
  EXPECT_EQ(4000u, e.auth_timeout_ms);
  EXPECT_EQ(3000u, e.graceful_close_ms);
  EXPECT_EQ(65536u, e.read_chunk);
}

}  // namespace
}  // namespace jrdma
