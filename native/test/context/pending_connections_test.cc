// The bound on connections not open yet (context/pending_connections.h) and the queue of
// requests parked for the admission policy (context/admission_queue.h), as both transports use them.
#include "context/pending_connections.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "base/error.h"
#include "context/admission_queue.h"

namespace jrdma {
namespace {

TEST(PendingConnections, AListenersBoundIsMetBeforeTheContexts) {
  PendingConnections context(10);
  PendingCount listener{2};
  uint32_t bound_met = 0;
  PendingPlace first = context.take(listener, &bound_met);
  PendingPlace second = context.take(listener, &bound_met);
  EXPECT_TRUE(first.held() && second.held());
  PendingPlace third = context.take(listener, &bound_met);
  EXPECT_FALSE(third.held());
  EXPECT_EQ(2u, bound_met) << "the listener's";
  EXPECT_EQ(2u, listener.held);
  EXPECT_EQ(2u, context.held());
}

TEST(PendingConnections, TheContextsBoundHoldsOverAllListeners) {
  PendingConnections context(3);
  PendingCount a{64};
  PendingCount b{64};
  uint32_t bound_met = 0;
  PendingPlace p1 = context.take(a, &bound_met);
  PendingPlace p2 = context.take(a, &bound_met);
  PendingPlace p3 = context.take(b, &bound_met);
  PendingPlace over = context.take(b, &bound_met);
  EXPECT_FALSE(over.held());
  EXPECT_EQ(3u, bound_met) << "the context's";
  p1.release();
  EXPECT_EQ(1u, a.held);
  PendingPlace again = context.take(b, &bound_met);
  EXPECT_TRUE(again.held()) << "a place given back is taken again";
  EXPECT_EQ(2u, b.held);
}

TEST(PendingConnections, APlaceIsGivenBackOnceWhetherReleasedMovedOrDestroyed) {
  PendingConnections context(8);
  PendingCount listener{8};
  uint32_t bound_met = 0;
  {
    PendingPlace place = context.take(listener, &bound_met);
    PendingPlace moved = std::move(place);
    EXPECT_FALSE(place.held());  // NOLINT(bugprone-use-after-move): a moved-from place holds nothing
    EXPECT_TRUE(moved.at(listener));
    moved.release();
    moved.release();
    EXPECT_EQ(0u, context.held());
    PendingPlace kept = context.take(listener, &bound_met);
    PendingPlace other = context.take(listener, &bound_met);
    kept = std::move(other);  // the place it held is given back
    EXPECT_EQ(1u, context.held());
  }
  EXPECT_EQ(0u, context.held());
  EXPECT_EQ(0u, listener.held);
}

TEST(PendingConnections, AConnectionWhoseListenerClosedStillCountsForTheContext) {
  PendingConnections context(1);
  uint32_t bound_met = 0;
  PendingPlace place;
  {
    PendingCount listener{4};
    place = context.take(listener, &bound_met);
    place.leave_listener();
    EXPECT_EQ(0u, listener.held);
    EXPECT_FALSE(place.at(listener));
  }
  PendingCount next{4};
  EXPECT_FALSE(context.take(next, &bound_met).held()) << "still pinned until it settles";
  place.release();
  EXPECT_TRUE(context.take(next, &bound_met).held());
}

struct Parked : AdmissionRequest {
  int listener = 0;
};

std::unique_ptr<Parked> parked_at(int listener, const std::string& address) {
  auto request = std::make_unique<Parked>();
  request->listener = listener;
  request->peer_address = address;
  return request;
}

TEST(AdmissionQueue, ARequestIsFoundByItsHandleAndDecidedOnce) {
  AdmissionQueue<Parked> queue;
  int64_t handle = queue.park(parked_at(1, "10.0.0.1 7000"));
  ASSERT_NE(nullptr, queue.find(handle));
  EXPECT_EQ("10.0.0.1 7000", queue.find(handle)->peer_address);
  std::unique_ptr<Parked> taken = queue.take(handle);
  EXPECT_EQ(nullptr, queue.find(handle)) << "decided: gone";
  try {
    queue.take(handle);
    FAIL() << "a second decision must be refused";
  } catch (const RdmaError& e) {
    EXPECT_EQ(ErrorKind::kIllegalArgument, e.kind());
    EXPECT_NE(std::string::npos, std::string(e.what()).find("awaits a decision")) << e.what();
  }
}

TEST(AdmissionQueue, AClosingListenersRequestsAreRefusedAndTheirPlacesGiven) {
  PendingConnections context(8);
  PendingCount listener{8};
  uint32_t bound_met = 0;
  AdmissionQueue<Parked> queue;
  int64_t kept = 0;
  for (int i = 0; i < 4; ++i) {
    std::unique_ptr<Parked> request = parked_at(i % 2, "peer " + std::to_string(i));
    request->place = context.take(listener, &bound_met);
    int64_t handle = queue.park(std::move(request));
    if (i == 1) kept = handle;
  }
  std::string refused;
  queue.refuse_each([](const Parked& request) { return request.listener == 0; },
                    [&refused](Parked& request) { refused += request.peer_address + ";"; });
  EXPECT_EQ("peer 0;peer 2;", refused);
  EXPECT_EQ(2u, queue.size());
  EXPECT_EQ(2u, context.held()) << "the refused requests' places are free";
  EXPECT_NE(nullptr, queue.find(kept));
}

}  // namespace
}  // namespace jrdma
