// The own .debug_info reader (elf/src/dwarf_native.cpp) against libdw's DIE walks: for real
// binaries built the ways users build them, every unit, every function and every function's
// inline tree and every unit's line table must come out the same from DwarfReader with either
// parser.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sprof/elf/dwarf_reader.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof_test/paths.hpp"

namespace sprof::elf {
namespace {

std::string target(const std::string& relative) {
  return std::string(test::kTargetsDir) + "/" + relative;
}

// The detached debug file of a system library, from libc6-dbg's .build-id tree; empty if absent.
std::string system_debug_file(const std::string& library) {
  auto id = read_module_identity(library);
  if (!id || !id->has_gnu_build_id) return {};
  const std::string hex = id->code_id();
  const std::string path =
      "/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
  return std::filesystem::exists(path) ? path : std::string();
}

struct Counts {
  size_t units = 0;
  size_t functions = 0;
  size_t scopes = 0;
  size_t line_rows = 0;
};

void check_same_lines(const DwarfLines& a, const DwarfLines& b) {
  REQUIRE(a.files.size() == b.files.size());
  for (size_t i = 0; i < a.files.size(); ++i) CHECK(a.files[i] == b.files[i]);
  REQUIRE(a.rows.size() == b.rows.size());
  for (size_t i = 0; i < a.rows.size(); ++i) {
    CHECK(a.rows[i].address == b.rows[i].address);
    CHECK(a.rows[i].file == b.rows[i].file);
    CHECK(a.rows[i].line == b.rows[i].line);
    CHECK(a.rows[i].end_sequence == b.rows[i].end_sequence);
  }
}

void check_same_ranges(const std::vector<DwarfRange>& a, const std::vector<DwarfRange>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].begin == b[i].begin);
    CHECK(a[i].end == b[i].end);
  }
}

// Compares the two readers over the whole module; returns what was compared.
Counts compare_parsers(const std::string& path) {
  INFO(path);
  auto own = DwarfReader::open(path, 1, DwarfParser::kOwnThenLibdw);
  auto libdw = DwarfReader::open(path, 1, DwarfParser::kLibdw);
  REQUIRE(own.has_value());
  REQUIRE(libdw.has_value());
  const std::vector<DwarfUnit> own_units = (*own)->units();
  const std::vector<DwarfUnit> libdw_units = (*libdw)->units();
  Counts counts;
  REQUIRE(own_units.size() == libdw_units.size());
  for (size_t u = 0; u < own_units.size(); ++u) {
    INFO("unit at " << libdw_units[u].offset);
    REQUIRE(own_units[u].offset == libdw_units[u].offset);
    check_same_ranges(own_units[u].ranges, libdw_units[u].ranges);
    const DwarfLines own_lines = (*own)->lines(own_units[u].offset);
    check_same_lines(own_lines, (*libdw)->lines(libdw_units[u].offset));
    counts.line_rows += own_lines.rows.size();
    const DwarfFunctions own_functions = (*own)->functions(own_units[u].offset);
    const DwarfFunctions libdw_functions = (*libdw)->functions(libdw_units[u].offset);
    REQUIRE(own_functions.functions.size() == libdw_functions.functions.size());
    check_same_ranges(own_functions.ranges, libdw_functions.ranges);
    for (size_t f = 0; f < own_functions.functions.size(); ++f) {
      const DwarfFunction& a = own_functions.functions[f];
      const DwarfFunction& b = libdw_functions.functions[f];
      INFO("function at " << b.offset);
      REQUIRE(a.offset == b.offset);
      CHECK(a.depth == b.depth);
      CHECK(a.first_range == b.first_range);
      CHECK(a.range_count == b.range_count);
      const DwarfInlineTree own_tree = (*own)->inline_tree(own_units[u].offset, a.offset);
      const DwarfInlineTree libdw_tree = (*libdw)->inline_tree(libdw_units[u].offset, b.offset);
      REQUIRE(own_tree.scopes.size() == libdw_tree.scopes.size());
      for (size_t s = 0; s < own_tree.scopes.size(); ++s) {
        const DwarfScope& x = own_tree.scopes[s];
        const DwarfScope& y = libdw_tree.scopes[s];
        CHECK(x.name == y.name);
        CHECK(x.call_file == y.call_file);
        CHECK(x.call_line == y.call_line);
        CHECK(x.parent == y.parent);
        CHECK(x.depth == y.depth);
        CHECK(x.inlined == y.inlined);
      }
      REQUIRE(own_tree.ranges.size() == libdw_tree.ranges.size());
      for (size_t r = 0; r < own_tree.ranges.size(); ++r) {
        CHECK(own_tree.ranges[r].begin == libdw_tree.ranges[r].begin);
        CHECK(own_tree.ranges[r].end == libdw_tree.ranges[r].end);
        CHECK(own_tree.ranges[r].scope == libdw_tree.ranges[r].scope);
      }
      counts.scopes += own_tree.scopes.size();
    }
    counts.functions += own_functions.functions.size();
  }
  counts.units = own_units.size();
  return counts;
}

TEST_CASE("the own DWARF reader reads what libdw reads, on every toolchain's output") {
  struct Binary {
    std::string path;
    bool own_parses;  // whether the own reader is expected to take the module
  };
  const std::vector<Binary> binaries = {
      // g++ -O2 -g: DWARF 5, .debug_rnglists by offset, DW_FORM_line_strp.
      {target("sprof_symbols_target"), true},
      {target("symbols/sprof_symbols_target.debug"), true},
      // g++ -gdwarf-4: .debug_ranges, DW_AT_sibling everywhere.
      {target("symbols/sprof_symbols_dwarf4"), true},
      // -gz: compressed sections, inflated by libdw for both.
      {target("symbols/sprof_symbols_compressed"), true},
      // clang++ -O2 -g with lld: DWARF 5 with strx, addrx, rnglistx and their bases.
      {target("toolchains/tc_clang_lld"), true},
      // rustc: DWARF 4 with the standard library's units.
      {target("toolchains/tc_rust"), true},
      {target("toolchains/tc_rust_v0"), true},
      // Split DWARF: libdw's throughout.
      {target("sprof_symbols_split_dwarf5"), false},
      // This test program: a large C++ binary (doctest, the sprof libraries).
      {"/proc/self/exe", true},
  };
  for (const Binary& binary : binaries) {
    if (!std::filesystem::exists(binary.path)) {
      MESSAGE("skipped (not built): " << binary.path);
      continue;
    }
    auto own = DwarfReader::open(binary.path, 1);
    REQUIRE(own.has_value());
    CHECK_MESSAGE((*own)->parses_dies_itself() == binary.own_parses, binary.path);
    const Counts counts = compare_parsers(binary.path);
    MESSAGE(binary.path << ": " << counts.units << " units, " << counts.functions << " functions, "
                        << counts.scopes << " scopes and " << counts.line_rows
                        << " line rows alike");
    CHECK(counts.functions > 0);
  }
}

TEST_CASE("the own DWARF reader leaves dwz's supplementary references to libdw") {
  // Debian's libc6-dbg is made with dwz: DW_FORM_GNU_strp_alt names and DW_FORM_GNU_ref_alt
  // origins point into /usr/lib/debug/.dwz. The answers must still be libdw's, unit by unit.
  const std::string debug = system_debug_file("/lib/x86_64-linux-gnu/libm.so.6");
  if (debug.empty()) {
    MESSAGE("skipped: libc6-dbg is not installed");
    return;
  }
  const Counts counts = compare_parsers(debug);
  MESSAGE(debug << ": " << counts.units << " units, " << counts.functions << " functions, "
                << counts.scopes << " scopes and " << counts.line_rows << " line rows alike");
  CHECK(counts.functions > 100);
}

}  // namespace
}  // namespace sprof::elf
