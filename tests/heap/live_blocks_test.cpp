// LiveBlocks: blocks by space and address, the bound on spaces kept empty, and what ending a
// space or all of them hands out.
#include "sprof/heap/live_blocks.hpp"

#include <doctest/doctest.h>

#include <map>
#include <utility>

using sprof::heap::LiveBlocks;

TEST_CASE("live blocks: found, replaced and taken by space and address") {
  LiveBlocks<int> live;
  live.insert(1, 0x1000, 10);
  live.insert(2, 0x1000, 20);  // the same address in another space is another block
  CHECK(live.contains(1, 0x1000));
  CHECK_FALSE(live.contains(1, 0x2000));
  CHECK_FALSE(live.contains(3, 0x1000));
  REQUIRE(live.find(2, 0x1000) != nullptr);
  CHECK(*live.find(2, 0x1000) == 20);
  live.insert(1, 0x1000, 11);  // an address handed out again replaces the block
  CHECK(*live.find(1, 0x1000) == 11);
  CHECK(live.take(1, 0x1000) == 11);
  CHECK_FALSE(live.take(1, 0x1000).has_value());
  CHECK_FALSE(live.take(7, 0x1000).has_value());
  CHECK(live.find(1, 0x1000) == nullptr);
  CHECK(*live.find(2, 0x1000) == 20);
}

TEST_CASE("live blocks: an emptied space is kept while few exist, dropped past the bound") {
  constexpr uint64_t kKept = LiveBlocks<int>::kKeptEmptySpaces;
  LiveBlocks<int> live;
  // One live block at a time, as a churning program has: the space stays.
  for (int i = 0; i < 100; ++i) {
    live.insert(1, 0x1000, i);
    CHECK(live.take(1, 0x1000) == i);
  }
  CHECK(live.spaces() == 1);
  // A forged ring naming many pids, each with one block freed again, leaves at most the bound.
  for (uint64_t pid = 2; pid < 100'000; ++pid) {
    live.insert(pid, 0x1000, 1);
    live.take(pid, 0x1000);
  }
  CHECK(live.spaces() <= kKept + 1);
  // Spaces that still hold blocks are never dropped.
  for (uint64_t pid = 200'000; pid < 200'000 + 2 * kKept; ++pid) live.insert(pid, 0x1000, 2);
  live.take(200'000, 0x1000);
  CHECK(live.spaces() >= 2 * kKept - 1);
  CHECK(live.contains(200'000 + 2 * kKept - 1, 0x1000));
}

TEST_CASE("live blocks: ending a space hands out its blocks once and forgets it") {
  LiveBlocks<int> live;
  live.insert(1, 0x1000, 10);
  live.insert(1, 0x2000, 20);
  live.insert(2, 0x3000, 30);
  std::map<uint64_t, int> ended;
  live.end_space(1, [&](uint64_t address, int block) { ended[address] = block; });
  CHECK(ended == std::map<uint64_t, int>{{0x1000, 10}, {0x2000, 20}});
  CHECK_FALSE(live.contains(1, 0x1000));
  ended.clear();
  live.end_space(1, [&](uint64_t address, int block) { ended[address] = block; });
  CHECK(ended.empty());
  std::map<std::pair<uint64_t, uint64_t>, int> all;
  live.insert(3, 0x4000, 40);
  live.end_all([&](uint64_t space, uint64_t address, int block) { all[{space, address}] = block; });
  CHECK(all == std::map<std::pair<uint64_t, uint64_t>, int>{{{2, 0x3000}, 30}, {{3, 0x4000}, 40}});
  CHECK(live.spaces() == 0);
}
