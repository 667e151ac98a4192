// Finding a module's files: separate debug files by build-id tree and .gnu_debuglink, symbol
// directories, build-id checks, missing modules, and an in-memory image (the vdso) saved to a file.
#include <doctest/doctest.h>
#include <sys/auxv.h>

#include <fstream>
#include <sstream>

#include "sprof/elf/debug_file_locator.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

using test::basename_of;
using test::target_path;

constexpr const char* kName = "sprof_symbols_target";

SymbolicatorOptions options_with(std::vector<std::string> symbol_dirs) {
  SymbolicatorOptions options;
  options.symbol_dirs = std::move(symbol_dirs);
  options.debug_roots.clear();  // keep /usr/lib/debug out of these tests
  return options;
}

std::string target_id() { return test::identity_of(target_path(kName)).breakpad_id(); }

// Symbolicates the middle of inline_chain_outer; it has inline frames and lines only when the
// module's DWARF was found.
SymbolInfo chain_outer_info(const SymbolMap& map) {
  const elf::ElfSymbol outer =
      test::symbol_in(target_path(kName), "_ZN12sprof_target18inline_chain_outerEi");
  std::optional<SymbolInfo> best;
  for (uint64_t a = outer.address; a < outer.address + outer.size; ++a) {
    auto info = map.lookup(RelativeAddress{a});
    if (info && (!best || info->inlines.size() > best->inlines.size())) best = info;
  }
  REQUIRE(best.has_value());
  CHECK(best->function == "sprof_target::inline_chain_outer(int)");
  return *best;
}

TEST_CASE("a stripped binary finds its debug file in a build-id tree under a symbol dir") {
  test::TempDir dir;
  const auto identity = test::identity_of(target_path(kName));
  const std::string debug = dir.copy_in(target_path("symbols/sprof_symbols_target.debug"),
                                        test::build_id_tree_path(identity));
  const std::string stripped = target_path("symbols/by_build_id/sprof_symbols_target");
  Symbolicator symbolicator(options_with({dir.path()}));
  symbolicator.add_hint(ModuleHint{kName, target_id(), stripped});
  auto map = symbolicator.module(kName, target_id());
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  CHECK((*map)->debug_file() == debug);
  CHECK((*map)->binary_file() == stripped);
  const SymbolInfo info = chain_outer_info(**map);
  CHECK(info.inlines.size() == 3);
  CHECK(basename_of(info.file) == "inline_chain.cpp");
}

TEST_CASE("a stripped binary finds its debug file through .gnu_debuglink") {
  const std::string stripped = target_path("symbols/by_debuglink/sprof_symbols_target");
  Symbolicator symbolicator(options_with({}));
  symbolicator.add_hint(ModuleHint{kName, target_id(), stripped});
  auto map = symbolicator.module(kName, target_id());
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  CHECK((*map)->debug_file() ==
        target_path("symbols/by_debuglink/.debug/sprof_symbols_target.debug"));
  CHECK(chain_outer_info(**map).inlines.size() == 3);

  SUBCASE("also when the debug file lies beside the binary") {
    test::TempDir dir;
    const std::string copy = dir.copy_in(stripped, kName);
    const std::string beside = dir.copy_in(target_path("symbols/sprof_symbols_target.debug"),
                                           "sprof_symbols_target.debug");
    Symbolicator other(options_with({}));
    other.add_hint(ModuleHint{kName, target_id(), copy});
    auto found = other.module(kName, target_id());
    REQUIRE(found.has_value());
    CHECK((*found)->debug_file() == beside);
  }
}

TEST_CASE("without debug info a stripped binary falls back to its symbol table") {
  Symbolicator symbolicator(options_with({}));
  symbolicator.add_hint(
      ModuleHint{kName, target_id(), target_path("symbols/by_build_id/sprof_symbols_target")});
  auto map = symbolicator.module(kName, target_id());
  REQUIRE(map.has_value());
  const SymbolInfo info = chain_outer_info(**map);
  CHECK(info.inlines.empty());
  CHECK(info.file.empty());
  CHECK(info.line == 0);
}

TEST_CASE("a debug file whose build-id does not match is rejected") {
  test::TempDir dir;
  const auto identity = test::identity_of(target_path(kName));
  // Another module's debug info at this module's build-id path.
  dir.copy_in(target_path("libsprof_symbols_shared.so"), test::build_id_tree_path(identity));
  Symbolicator symbolicator(options_with({dir.path()}));
  symbolicator.add_hint(
      ModuleHint{kName, target_id(), target_path("symbols/by_build_id/sprof_symbols_target")});
  auto map = symbolicator.module(kName, target_id());
  REQUIRE(map.has_value());
  CHECK((*map)->debug_file() != dir.path() + "/" + test::build_id_tree_path(identity));
  CHECK(chain_outer_info(**map).inlines.empty());
}

TEST_CASE("a module that cannot be found is kNotFound") {
  Symbolicator symbolicator(options_with({}));
  auto missing = symbolicator.module("libdoesnotexist.so", "0123456789ABCDEF0123456789ABCDEF0");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Errc::kNotFound);

  SUBCASE("a hint to a missing file is harmless") {
    symbolicator.add_hint(
        ModuleHint{"gone.so", "0123456789ABCDEF0123456789ABCDEF0", "/no/such/gone.so"});
    auto gone = symbolicator.module("gone.so", "0123456789ABCDEF0123456789ABCDEF0");
    REQUIRE_FALSE(gone.has_value());
    CHECK(gone.error().code == Errc::kNotFound);
  }
  SUBCASE("a hint to a file with another build-id is rejected") {
    symbolicator.add_hint(
        ModuleHint{kName, "0123456789ABCDEF0123456789ABCDEF0", target_path(kName)});
    auto wrong = symbolicator.module(kName, "0123456789ABCDEF0123456789ABCDEF0");
    REQUIRE_FALSE(wrong.has_value());
    CHECK(wrong.error().code == Errc::kNotFound);
  }
  SUBCASE("a file that is not ELF is not a module") {
    symbolicator.add_hint(ModuleHint{"main.cpp", "0123456789ABCDEF0123456789ABCDEF0",
                                     test::symbols_source("main.cpp")});
    CHECK_FALSE(symbolicator.module("main.cpp", "0123456789ABCDEF0123456789ABCDEF0").has_value());
  }
}

TEST_CASE("a failed module is retried after a new hint arrives") {
  Symbolicator symbolicator(options_with({}));
  CHECK_FALSE(symbolicator.module(kName, target_id()).has_value());
  symbolicator.add_hint(ModuleHint{kName, target_id(), target_path(kName)});
  CHECK(symbolicator.module(kName, target_id()).has_value());
}

TEST_CASE("a symbol dir is searched by the module's file name") {
  test::TempDir dir;
  dir.copy_in(target_path(kName), kName);
  Symbolicator symbolicator(options_with({dir.path()}));
  auto map = symbolicator.module(kName, target_id());
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  CHECK(chain_outer_info(**map).inlines.size() == 3);
}

TEST_CASE("without any binary a debug file is found by the breakpad id's build-id prefix") {
  test::TempDir dir;
  const auto identity = test::identity_of(target_path(kName));
  dir.copy_in(target_path("symbols/sprof_symbols_target.debug"),
              test::build_id_tree_path(identity));
  Symbolicator symbolicator(options_with({dir.path()}));
  auto map = symbolicator.module("renamed-module", identity.breakpad_id());
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  CHECK((*map)->binary_file().empty());
  CHECK(chain_outer_info(**map).inlines.size() == 3);
}

// The vdso's ELF image as the recorder would dump it: the [vdso] mapping's bytes.
std::string dump_own_vdso(const test::TempDir& dir) {
  const auto base = getauxval(AT_SYSINFO_EHDR);
  REQUIRE(base != 0);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  uint64_t start = 0, end = 0;
  while (std::getline(maps, line)) {
    if (line.find("[vdso]") == std::string::npos) continue;
    std::sscanf(line.c_str(), "%lx-%lx", &start, &end);
  }
  REQUIRE(start == base);
  const std::string bytes(reinterpret_cast<const char*>(start), end - start);
  return dir.write("vdso.so", bytes);
}

TEST_CASE("the vdso symbolicates from a dumped image file") {
  test::TempDir dir;
  const std::string image = dump_own_vdso(dir);
  const auto identity = test::identity_of(image);
  Symbolicator symbolicator(options_with({}));
  symbolicator.add_hint(ModuleHint{"[vdso]", identity.breakpad_id(), image});
  auto map = symbolicator.module("[vdso]", identity.breakpad_id());
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  const elf::ElfSymbol clock = test::symbol_in(image, "__vdso_clock_gettime");
  auto info = (*map)->lookup(RelativeAddress{clock.address - identity.base_vaddr + 4});
  REQUIRE(info.has_value());
  CHECK(info->function.find("clock_gettime") != std::string::npos);
}

TEST_CASE("breakpad ids compare case-insensitively and by length") {
  CHECK(elf::breakpad_ids_equal("ABCDEF0", "abcdef0"));
  CHECK_FALSE(elf::breakpad_ids_equal("ABCDEF0", "ABCDEF"));
  CHECK_FALSE(elf::breakpad_ids_equal("ABCDEF0", "ABCDEF1"));
}

}  // namespace
}  // namespace sprof::symbolicator
