#include "sprof/core/pair_index.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

using sprof::PairIndex;

TEST_CASE("pair index finds what was inserted and keeps the first value of a key") {
  PairIndex index;
  CHECK_FALSE(index.find(1, 2).has_value());
  CHECK(index.insert(1, 2, 7) == 7);
  CHECK(index.insert(2, 1, 8) == 8);  // the pair is ordered
  CHECK(index.insert(1, 2, 9) == 7);  // present: kept, like emplace
  CHECK(index.size() == 2);
  CHECK(index.find(1, 2) == 7u);
  CHECK(index.find(2, 1) == 8u);
  CHECK_FALSE(index.find(1, 1).has_value());
  CHECK(index.insert(0, 0, UINT32_MAX) == UINT32_MAX);  // any key and value, zeros included
  CHECK(index.find(0, 0) == UINT32_MAX);
}

TEST_CASE("pair index grows and erases like a std::map") {
  // Keys that share low bits (addresses 16 apart, one category) and small consecutive ones, so
  // runs of probing form; every other key is erased, then all are looked up.
  PairIndex index;
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> expected;
  uint32_t next = 0;
  for (uint64_t i = 0; i < 5000; ++i) {
    const std::pair<uint64_t, uint64_t> keys[] = {{0x7f0000001000 + i * 16, 2}, {i, i % 3}};
    for (const auto& [a, b] : keys) {
      index.insert(a, b, next);
      expected.emplace(std::pair{a, b}, next);
      ++next;
    }
  }
  CHECK(index.size() == expected.size());
  bool odd = false;
  for (auto it = expected.begin(); it != expected.end();) {
    odd = !odd;
    if (odd) {
      CHECK(index.erase(it->first.first, it->first.second));
      CHECK_FALSE(index.erase(it->first.first, it->first.second));
      it = expected.erase(it);
    } else {
      ++it;
    }
  }
  CHECK(index.size() == expected.size());
  for (uint64_t i = 0; i < 5000; ++i) {
    const std::pair<uint64_t, uint64_t> keys[] = {{0x7f0000001000 + i * 16, 2}, {i, i % 3}};
    for (const auto& key : keys) {
      const auto it = expected.find(key);
      const auto found = index.find(key.first, key.second);
      if (it == expected.end()) {
        CHECK_FALSE(found.has_value());
      } else {
        REQUIRE(found.has_value());
        CHECK(*found == it->second);
      }
    }
  }
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> visited;
  index.for_each([&](uint64_t a, uint64_t b, uint32_t v) { visited.emplace(std::pair{a, b}, v); });
  CHECK(visited == expected);
}

TEST_CASE("pair index erase keeps a wrapped probe run reachable") {
  // Fill a fresh table (16 slots, at most 8 entries) and erase each key in turn from a copy:
  // whatever runs the hash forms, including ones wrapping past the last slot, the rest stay.
  for (uint64_t victim = 0; victim < 8; ++victim) {
    PairIndex index;
    for (uint64_t k = 0; k < 8; ++k) index.insert(k * 1000003, 1, static_cast<uint32_t>(k));
    CHECK(index.erase(victim * 1000003, 1));
    for (uint64_t k = 0; k < 8; ++k) {
      if (k == victim) {
        CHECK_FALSE(index.find(k * 1000003, 1).has_value());
      } else {
        CHECK(index.find(k * 1000003, 1) == static_cast<uint32_t>(k));
      }
    }
  }
}

TEST_CASE("pair index clear empties it and it fills again") {
  PairIndex index;
  for (uint32_t i = 0; i < 100; ++i) index.insert(i, 0, i);
  index.clear();
  CHECK(index.empty());
  CHECK_FALSE(index.find(5, 0).has_value());
  CHECK(index.insert(5, 0, 1) == 1);
  CHECK(index.find(5, 0) == 1u);
}
