// WalkedStackCache from plain keys: what it remembers, what makes two keys differ, clear().
#include "sprof/convert/walked_stack_cache.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

using namespace sprof::convert;

namespace {

std::vector<uint8_t> bytes_of(std::vector<uint64_t> return_addresses) {
  std::vector<uint8_t> out(return_addresses.size() * sizeof(uint64_t));
  std::memcpy(out.data(), return_addresses.data(), out.size());
  return out;
}

// Stand-ins for the two AllocatorFrames: only their addresses matter.
char allocators_tag = 0;
char deallocators_tag = 0;
const void* const kAllocators = &allocators_tag;
const void* const kDeallocators = &deallocators_tag;

}  // namespace

TEST_CASE("a walked stack is found again only under the same key") {
  WalkedStackCache cache;
  const std::vector<uint8_t> path = bytes_of({0x1200, 0x1300});
  const WalkedStackCache::Key key{{0, 1, 7, kAllocators, 0x7100}, path};
  CHECK(cache.find(key) == nullptr);
  cache.remember(key, 42U);
  REQUIRE(cache.find(key) != nullptr);
  CHECK(*cache.find(key) == 42U);

  // The same bytes in another buffer are the same key.
  const std::vector<uint8_t> copy = path;
  WalkedStackCache::Key same = key;
  same.return_addresses = copy;
  REQUIRE(cache.find(same) != nullptr);
  CHECK(*cache.find(same) == 42U);

  // Each part of the key tells two stacks apart.
  const std::vector<uint8_t> other_path = bytes_of({0x1200, 0x1304});
  const std::vector<uint8_t> shorter = bytes_of({0x1200});
  std::vector<WalkedStackCache::Key> others(7, key);
  others[0].origin.image = 1;
  others[1].origin.thread = 0;
  others[2].origin.pid = 8;
  others[3].origin.wrappers = kDeallocators;
  others[4].origin.ip = 0x7104;
  others[5].return_addresses = other_path;
  others[6].return_addresses = shorter;
  for (const WalkedStackCache::Key& other : others) CHECK(cache.find(other) == nullptr);
}

TEST_CASE("an empty stack is remembered as one, and clear forgets everything") {
  WalkedStackCache cache;
  const std::vector<uint8_t> path = bytes_of({0x1200});
  const WalkedStackCache::Key key{{0, 0, 7, kAllocators, 0x7100}, path};
  cache.remember(key, std::nullopt);
  REQUIRE(cache.find(key) != nullptr);
  CHECK_FALSE(cache.find(key)->has_value());
  cache.clear();
  CHECK(cache.find(key) == nullptr);
  // And after a clear, what is remembered again is found again.
  cache.remember(key, 3U);
  REQUIRE(cache.find(key) != nullptr);
  CHECK(*cache.find(key) == 3U);
}

TEST_CASE("the cache holds at most kSlots call paths, the newest winning a slot") {
  WalkedStackCache cache;
  std::vector<std::vector<uint8_t>> paths;
  for (uint64_t i = 0; i < 4 * WalkedStackCache::kSlots; ++i) paths.push_back(bytes_of({i}));
  for (uint32_t i = 0; i < paths.size(); ++i) {
    cache.remember({{0, 0, 7, kAllocators, 0x7100}, paths[i]}, i);
  }
  size_t found = 0;
  for (uint32_t i = 0; i < paths.size(); ++i) {
    const auto* stack = cache.find({{0, 0, 7, kAllocators, 0x7100}, paths[i]});
    if (stack == nullptr) continue;
    ++found;
    CHECK(*stack == i);  // never another path's stack
  }
  CHECK(found <= WalkedStackCache::kSlots);
  CHECK(found > 0);
}
