// The queue of records for Java (protocol/record_queue.h) when its vector cannot grow: no record
// is lost and the order holds, through the reserve, until the reserve itself is full.
#include "protocol/record_queue.h"

#include <gtest/gtest.h>

#include <memory>
#include <new>

namespace jrdma {
namespace {

// std::allocator, except that its allocations fail while `failing` is set.
template <typename T>
struct FlakyAllocator {
  using value_type = T;
  static inline bool failing = false;

  FlakyAllocator() = default;
  template <typename U>
  FlakyAllocator(const FlakyAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding

  T* allocate(std::size_t n) {
    if (failing) throw std::bad_alloc();
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
  bool operator==(const FlakyAllocator&) const noexcept { return true; }
  bool operator!=(const FlakyAllocator&) const noexcept { return false; }
};

using Queue = BasicRecordQueue<FlakyAllocator<EventRecord>>;

struct RecordQueueTest : ::testing::Test {
  ~RecordQueueTest() override { FlakyAllocator<EventRecord>::failing = false; }
  static void fail(bool failing) { FlakyAllocator<EventRecord>::failing = failing; }
  static EventRecord numbered(int n) { return make_record(EventKind::kMessage, n); }
  Queue queue;
  EventRecord out[Queue::kReserve * 2];
};

TEST_F(RecordQueueTest, RecordsTheVectorCouldNotTakeComeInOrderWhenItGrowsAgain) {
  int next = 0;
  for (; next < 4; ++next) queue.push(numbered(next));  // the vector's capacity is 4 now
  fail(true);
  for (; next < 7; ++next) queue.push(numbered(next));  // 4 no longer fits: 4, 5, 6 to the reserve
  fail(false);
  for (; next < 9; ++next) queue.push(numbered(next));  // the reserve moves back, then 7 and 8
  ASSERT_EQ(9, queue.take(out, 64));
  for (int i = 0; i < 9; ++i) EXPECT_EQ(i, out[i].key) << "record " << i;
  EXPECT_FALSE(queue.pending());
}

TEST_F(RecordQueueTest, AQueueThatCannotAllocateAtAllHandsOverItsReserveInBatches) {
  fail(true);
  for (int i = 0; i < 10; ++i) queue.push(numbered(i));
  ASSERT_EQ(4, queue.take(out, 4));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(i, out[i].key);
  EXPECT_TRUE(queue.pending());
  queue.push(numbered(10));
  ASSERT_EQ(7, queue.take(out, 64));
  for (int i = 0; i < 7; ++i) EXPECT_EQ(4 + i, out[i].key);
  EXPECT_FALSE(queue.pending());
  EXPECT_EQ(0, queue.take(out, 64));
}

TEST_F(RecordQueueTest, OnlyAFullReserveWithNoAllocationThrows) {
  fail(true);
  for (std::size_t i = 0; i < Queue::kReserve; ++i) queue.push(numbered(static_cast<int>(i)));
  EXPECT_THROW(queue.push(numbered(-1)), std::bad_alloc);
  fail(false);
  queue.push(numbered(static_cast<int>(Queue::kReserve)));
  ASSERT_EQ(static_cast<int>(Queue::kReserve) + 1, queue.take(out, static_cast<int>(Queue::kReserve) * 2));
  for (std::size_t i = 0; i <= Queue::kReserve; ++i) EXPECT_EQ(static_cast<int>(i), out[i].key);
}

}  // namespace
}  // namespace jrdma
