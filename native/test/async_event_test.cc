#include "transports/verbs/async_event.h"

#include <gtest/gtest.h>

#include "transports/verbs/memory_region.h"

using jrdma::AsyncSeverity;
using jrdma::classify_async_event;

TEST(AsyncEvent, FatalEventsFailTheContext) {
  EXPECT_EQ(AsyncSeverity::kFatal, classify_async_event(IBV_EVENT_DEVICE_FATAL));
  EXPECT_EQ(AsyncSeverity::kFatal, classify_async_event(IBV_EVENT_CQ_ERR));
}

TEST(AsyncEvent, PortAndQueuePairErrorsAreErrors) {
  EXPECT_EQ(AsyncSeverity::kError, classify_async_event(IBV_EVENT_PORT_ERR));
  EXPECT_EQ(AsyncSeverity::kError, classify_async_event(IBV_EVENT_QP_FATAL));
  EXPECT_EQ(AsyncSeverity::kError, classify_async_event(IBV_EVENT_QP_ACCESS_ERR));
}

TEST(AsyncEvent, EverythingElseIsInformation) {
  EXPECT_EQ(AsyncSeverity::kInfo, classify_async_event(IBV_EVENT_PORT_ACTIVE));
  EXPECT_EQ(AsyncSeverity::kInfo, classify_async_event(IBV_EVENT_GID_CHANGE));
  EXPECT_EQ(AsyncSeverity::kInfo, classify_async_event(IBV_EVENT_COMM_EST));
}

TEST(AsyncEvent, PortOnlyForPortEvents) {
  ibv_async_event event{};
  event.event_type = IBV_EVENT_PORT_ERR;
  event.element.port_num = 2;
  EXPECT_EQ(2, jrdma::async_event_port(event));
  event.event_type = IBV_EVENT_DEVICE_FATAL;
  EXPECT_EQ(0, jrdma::async_event_port(event));
}

TEST(MemoryRegion, AccessText) {
  EXPECT_STREQ("LOCAL_WRITE", jrdma::verbs::access_text(IBV_ACCESS_LOCAL_WRITE));
  EXPECT_STREQ("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ",
               jrdma::verbs::access_text(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
  EXPECT_STREQ("INVALID", jrdma::verbs::access_text(64));
}
