// The channel table both transports' contexts keep: keys that outlive their channel name nobody,
// a full table is an error, not a crash, and a failed construction gives its index back.
#include "context/channel_table.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace jrdma {
namespace {

struct Entry {
  explicit Entry(uint32_t k) : key(k) {}
  const uint32_t key;
};

std::unique_ptr<Entry> make(uint32_t key) { return std::make_unique<Entry>(key); }

TEST(ChannelTable, AKeyFindsItsEntryUntilRemoved) {
  ChannelTable<Entry> table("test");
  Entry* a = table.insert(make);
  Entry* b = table.insert(make);
  EXPECT_NE(a->key, b->key);
  EXPECT_EQ(table.lookup(a->key), a);
  EXPECT_EQ(table.lookup(b->key), b);
  std::unique_ptr<Entry> gone = table.remove(a);
  EXPECT_EQ(gone.get(), a);
  EXPECT_EQ(table.lookup(gone->key), nullptr);
  EXPECT_EQ(table.remove(a), nullptr) << "a second remove finds nothing (and does not delete it twice)";
  EXPECT_EQ(table.lookup(b->key), b);
}

TEST(ChannelTable, AStaleKeyNamesNobodyAfterItsIndexIsReused) {
  ChannelTable<Entry> table("test");
  Entry* first = table.insert(make);
  uint32_t stale = first->key;
  table.remove(first).reset();
  Entry* second = table.insert(make);
  EXPECT_EQ(second->key & 0xffff, stale & 0xffff) << "the index is reused";
  EXPECT_NE(second->key, stale) << "with a new generation";
  EXPECT_EQ(table.lookup(stale), nullptr);
  EXPECT_EQ(table.lookup(second->key), second);
  EXPECT_NE(second->key >> 16, 0u) << "generation 0 is never used: key 0 names nobody";
  EXPECT_EQ(table.lookup(0), nullptr);
}

TEST(ChannelTable, GenerationsWrapAroundWithoutZero) {
  ChannelTable<Entry> table("test");
  std::set<uint32_t> generations;
  for (int i = 0; i < 70000; ++i) {
    Entry* entry = table.insert(make);
    ASSERT_EQ(entry->key & 0xffff, 0u);
    ASSERT_NE(entry->key >> 16, 0u);
    generations.insert(entry->key >> 16);
    table.remove(entry).reset();
  }
  EXPECT_EQ(generations.size(), 0xffffu);
}

TEST(ChannelTable, AFullTableRefusesWithTheOwnersName) {
  ChannelTable<Entry> table("ctx-7");
  for (uint32_t i = 0; i < ChannelTable<Entry>::kCapacity - 1; ++i) table.insert(make);
  try {
    table.insert(make);
    FAIL() << "a 65,536th channel was inserted";
  } catch (const RdmaError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIllegalState);
    EXPECT_NE(std::string(e.what()).find("ctx-7"), std::string::npos) << e.what();
  }
}

TEST(ChannelTable, AFailedConstructionGivesTheIndexBack) {
  ChannelTable<Entry> table("test");
  EXPECT_THROW(table.insert([](uint32_t) -> std::unique_ptr<Entry> { throw std::runtime_error("no"); }),
               std::runtime_error);
  Entry* entry = table.insert(make);
  EXPECT_EQ(entry->key & 0xffff, 0u) << "index 0 was given back";
  int seen = 0;
  table.for_each([&](Entry& e) {
    EXPECT_EQ(&e, entry);
    ++seen;
  });
  EXPECT_EQ(seen, 1);
}

TEST(ChannelTable, ForEachVisitsLiveEntriesOnlyAndClearEmpties) {
  ChannelTable<Entry> table("test");
  Entry* a = table.insert(make);
  Entry* b = table.insert(make);
  Entry* c = table.insert(make);
  table.remove(b).reset();
  std::set<Entry*> seen;
  table.for_each([&](Entry& e) { seen.insert(&e); });
  EXPECT_EQ(seen, (std::set<Entry*>{a, c}));
  uint32_t key_a = a->key;
  table.clear();
  EXPECT_EQ(table.lookup(key_a), nullptr);
  int after = 0;
  table.for_each([&](Entry&) { ++after; });
  EXPECT_EQ(after, 0);
}

}  // namespace
}  // namespace jrdma
