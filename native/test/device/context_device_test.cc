// Native tests that need an RDMA device (run inside the test-rxe VM, under AddressSanitizer
// there): the context's event loop and registration without a JVM.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>
#include <vector>

#include "base/error.h"
#include "transports/verbs/verbs_context.h"

namespace {

jrdma::ContextOptions rxe0() {
  jrdma::ContextOptions options;
  const char* device = std::getenv("JRDMA_TEST_DEVICE");
  options.device_name = device != nullptr ? device : "rxe0";
  return options;
}

}  // namespace

TEST(ContextDevice, OpensAndClosesManyTimes) {
  for (int i = 0; i < 50; ++i) {
    jrdma::VerbsContext context(rxe0());
    EXPECT_GT(context.cq_capacity(), 0);
    EXPECT_EQ("", context.close());
  }
}

TEST(ContextDevice, UnknownDeviceIsAConfigurationError) {
  jrdma::ContextOptions options;
  options.device_name = "nosuchdevice";
  try {
    jrdma::VerbsContext context(options);
    FAIL() << "opened a device that does not exist";
  } catch (const jrdma::RdmaError& e) {
    EXPECT_EQ(jrdma::ErrorKind::kConfiguration, e.kind());
  }
}

TEST(ContextDevice, WaitTimesOutAndWakes) {
  jrdma::VerbsContext context(rxe0());
  jrdma::EventRecord records[8];
  EXPECT_EQ(0, context.wait_events(records, 8, 10, jrdma::PollMode::kEvent));
  EXPECT_EQ(0, context.wait_events(records, 8, 10, jrdma::PollMode::kBusy));  // busy poll honours the timeout too
  EXPECT_EQ(0, context.wait_events(records, 8, 10, jrdma::PollMode::kAdaptive));
  std::thread waker([&] { context.wake(); });
  int n = context.wait_events(records, 8, 10000, jrdma::PollMode::kEvent);
  waker.join();
  ASSERT_EQ(1, n);
  EXPECT_EQ(static_cast<int32_t>(jrdma::EventKind::kWakeup), records[0].kind);
  EXPECT_EQ("", context.close());
  EXPECT_THROW(context.wait_events(records, 8, 0, jrdma::PollMode::kEvent), jrdma::RdmaError);
}

TEST(ContextDevice, RegistersAndDeregisters) {
  jrdma::VerbsContext context(rxe0());
  std::vector<char> memory(1 << 20);
  {
    auto region = context.register_memory(memory.data(), memory.size(), IBV_ACCESS_LOCAL_WRITE);
    EXPECT_EQ(memory.size(), region->length());
    EXPECT_EQ(0, region->release());
  }
  EXPECT_EQ("", context.close());
}

TEST(ContextDevice, RegistrationFailureCarriesErrno) {
  jrdma::VerbsContext context(rxe0());
  try {
    // Remote write without local write is invalid in verbs: EINVAL, not a crash.
    char byte = 0;
    context.register_memory(&byte, 1, IBV_ACCESS_REMOTE_WRITE);
    FAIL() << "registration should fail";
  } catch (const jrdma::RdmaError& e) {
    EXPECT_EQ(jrdma::ErrorKind::kRegistration, e.kind());
    EXPECT_NE(0, e.errno_value());
  }
}

TEST(ContextDevice, PdStillInUseIsReportedNotCrashed) {
  jrdma::VerbsContext context(rxe0());
  std::vector<char> memory(4096);
  auto region = context.register_memory(memory.data(), memory.size(), IBV_ACCESS_LOCAL_WRITE);
  std::string failures = context.close();
  EXPECT_NE(std::string::npos, failures.find("ibv_dealloc_pd")) << failures;
  EXPECT_EQ(0, region->release());
}
