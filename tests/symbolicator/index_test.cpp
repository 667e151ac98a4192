// The symbol map's index structures, tested from plain values.
#include <doctest/doctest.h>

#include "line_table.hpp"
#include "scope_index.hpp"
#include "symbol_table.hpp"

namespace sprof::symbolicator::detail {
namespace {

TEST_CASE("scope index answers the deepest nested range at each address") {
  // function 0 [100,200) with inline 1 [120,180) containing inline 2 [130,140) and [150,160).
  const ScopeIndex index = ScopeIndex::build({
      {150, 160, 2, 2},
      {100, 200, 0, 0},
      {130, 140, 2, 2},
      {120, 180, 1, 1},
  });
  CHECK_FALSE(index.find(99).has_value());
  CHECK(index.find(100) == 0u);
  CHECK(index.find(119) == 0u);
  CHECK(index.find(120) == 1u);
  CHECK(index.find(130) == 2u);
  CHECK(index.find(139) == 2u);
  CHECK(index.find(140) == 1u);
  CHECK(index.find(155) == 2u);
  CHECK(index.find(160) == 1u);
  CHECK(index.find(180) == 0u);
  CHECK(index.find(199) == 0u);
  CHECK_FALSE(index.find(200).has_value());
}

TEST_CASE("scope index keeps gaps between functions and prefers the deeper of equal ranges") {
  const ScopeIndex index = ScopeIndex::build({
      {0, 10, 0, 7}, {20, 30, 0, 8}, {20, 30, 1, 9},  // an inline covering its whole caller
  });
  CHECK(index.find(5) == 7u);
  CHECK_FALSE(index.find(10).has_value());
  CHECK_FALSE(index.find(15).has_value());
  CHECK(index.find(20) == 9u);
  CHECK(index.find(29) == 9u);
  CHECK_FALSE(index.find(30).has_value());
}

TEST_CASE("scope index picks the first of identical ranges, as dwarf_getscopes does") {
  const ScopeIndex index = ScopeIndex::build({{0, 10, 0, 5}, {0, 10, 0, 3}, {0, 10, 0, 4}});
  CHECK(index.find(0) == 3u);
  CHECK(index.find(9) == 3u);
  CHECK_FALSE(index.find(10).has_value());
}

TEST_CASE("scope index clips a child range that sticks out of its parent") {
  const ScopeIndex index = ScopeIndex::build({{0, 10, 0, 1}, {5, 20, 1, 2}});
  CHECK(index.find(7) == 2u);
  CHECK_FALSE(index.find(12).has_value());
}

TEST_CASE(
    "line table returns the last row at or below an address and nothing past a sequence end") {
  using Row = elf::DwarfLineRow;
  const LineTable table = LineTable::build(
      {
          Row{0x1010, 1, 12, false}, Row{0x1000, 1, 10, false},
          Row{0x1010, 1, 13, false},  // same address: the later row is in effect
          Row{0x1020, 1, 13, false},  // same line as before: merged
          Row{0x1030, 0, 0, true},
          Row{0x1030, 2, 40, false},  // a new sequence starting where the last ended
          Row{0x1040, 0, 0, true}, Row{0x500, 3, 1, false},  // below the base: dropped
      },
      0x1000);
  REQUIRE(table.find(0x5).has_value());
  CHECK(table.find(0x5)->line == 10);
  CHECK(table.find(0x10)->line == 13);
  CHECK(table.find(0x25)->line == 13);
  REQUIRE(table.find(0x30).has_value());
  CHECK(table.find(0x30)->file == 2u);
  CHECK(table.find(0x30)->line == 40);
  CHECK_FALSE(table.find(0x40).has_value());
  CHECK_FALSE(table.find(0x1000).has_value());
}

TEST_CASE("symbol table prefers the best-ranked alias and respects sizes") {
  const SymbolTable table = SymbolTable::build({
      {0x100, 0x20, "__GI_write", 0},
      {0x100, 0x20, "write", 1},
      {0x100, 0x20, "__libc_write", 2},
      {0x200, 0, "unsized", 2},
      {0x300, 0x10, "last", 2},
  });
  CHECK(table.size() == 3);
  REQUIRE(table.find(0x110).has_value());
  CHECK(table.find(0x110)->name == "__libc_write");
  CHECK(table.find(0x110)->start == 0x100);
  CHECK_FALSE(table.find(0x120).has_value());  // past the sized symbol's end
  CHECK_FALSE(table.find(0xff).has_value());
  REQUIRE(table.find(0x2ff).has_value());
  CHECK(table.find(0x2ff)->name == "unsized");  // extends to the next symbol
  CHECK(table.find(0x30f)->name == "last");
  CHECK_FALSE(table.find(0x310).has_value());
}

}  // namespace
}  // namespace sprof::symbolicator::detail
