#include "sprof/convert/module_map.hpp"

#include <doctest/doctest.h>

using sprof::Avma;
using sprof::FileOffset;
using sprof::convert::ModuleMap;

TEST_CASE("a mapping over the middle of another splits it and keeps the tail's file offset") {
  ModuleMap map;
  map.add("/a", Avma{0x1000}, Avma{0x5000}, FileOffset{0x0}, nullptr);
  map.add("/b", Avma{0x2000}, Avma{0x3000}, FileOffset{0x0}, nullptr);
  REQUIRE(map.find_mapping(0x1800) != nullptr);
  CHECK(map.find_mapping(0x1800)->file.path == "/a");
  CHECK(map.find_mapping(0x1800)->file.end == 0x2000);
  CHECK(map.find_mapping(0x2800)->file.path == "/b");
  const auto* tail = map.find_mapping(0x4000);
  REQUIRE(tail != nullptr);
  CHECK(tail->file.path == "/a");
  CHECK(tail->file.start == 0x3000);
  CHECK(tail->pgoff == FileOffset{0x2000});
  CHECK(tail->file.bias == map.find_mapping(0x1800)->file.bias);
}

TEST_CASE("a mapping covering older ones replaces them and trims the one it overlaps at the end") {
  ModuleMap map;
  map.add("/a", Avma{0x1000}, Avma{0x2000}, FileOffset{0x0}, nullptr);
  map.add("/b", Avma{0x2000}, Avma{0x4000}, FileOffset{0x0}, nullptr);
  map.add("/c", Avma{0x0800}, Avma{0x3000}, FileOffset{0x0}, nullptr);
  CHECK(map.find_mapping(0x1000)->file.path == "/c");
  CHECK(map.find_mapping(0x2fff)->file.path == "/c");
  const auto* b = map.find_mapping(0x3000);
  REQUIRE(b != nullptr);
  CHECK(b->file.path == "/b");
  CHECK(b->pgoff == FileOffset{0x1000});
  CHECK(map.find_mapping(0x4000) == nullptr);
}
