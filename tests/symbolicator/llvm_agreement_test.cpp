// sprof's symbolication against llvm-symbolizer's on random in-function addresses: of libc, libm,
// libstdc++ and the sprof binary (the benchmark, bench/symbolicate.cpp, does 10,000; this test
// 500), and of the Rust and clang/lld programs of tests/targets/toolchains.cmake (LLD-linked, so
// p_vaddr != p_offset; Rust's legacy and v0 mangling, inline frames from core/alloc/std). At least
// 99.9 % must name the same functions at every inline level (see bench/symbolizer_agreement.hpp
// for what counts as the same). Skipped, saying why, when llvm-symbolizer is not installed.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

#include "sprof/elf/elf_symbols.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbolizer_agreement.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

// Thunks are left out of the sample: GCC copies the adjusted function's body into them and
// describes it in DWARF, which llvm-symbolizer 14 does not find for them (it reports the thunk
// without inline frames); docs/benchmarks.md shows such cases.
bool is_thunk(const std::string& mangled) {
  return mangled.starts_with("_ZTh") || mangled.starts_with("_ZTv") || mangled.starts_with("_ZTc");
}

struct ModuleAgreement {
  bench::Agreement names;
  bench::PositionAgreement positions;
};

// `count` distinct addresses inside the function symbols of the module at `path`, symbolicated by
// sprof (as relative addresses) and by llvm-symbolizer (as SVMAs), compared.
ModuleAgreement measure(const std::string& llvm, const std::string& path, size_t count,
                        std::mt19937_64& rng) {
  CAPTURE(path);
  const auto identity = test::identity_of(path);
  const std::string name = test::basename_of(path);
  Symbolicator symbolicator(SymbolicatorOptions{});
  symbolicator.add_hint(ModuleHint{name, identity.breakpad_id(), path});
  auto map = symbolicator.module(name, identity.breakpad_id());
  REQUIRE(map.has_value());
  const std::string debug_file = (*map)->debug_file();

  std::map<uint64_t, uint64_t> functions;  // start -> size, from both symbol tables
  for (const std::string& file : std::set<std::string>{path, debug_file}) {
    auto symbols = elf::read_symbols(file);
    REQUIRE(symbols.has_value());
    for (const elf::ElfSymbol& s : *symbols) {
      if (s.size > 0 && !is_thunk(s.name)) functions.emplace(s.address, s.size);
    }
  }
  REQUIRE(functions.size() > 10);
  const std::vector<std::pair<uint64_t, uint64_t>> list(functions.begin(), functions.end());
  std::set<uint64_t> svmas;
  while (svmas.size() < count) {
    const auto& [start, size] = list[rng() % list.size()];
    svmas.insert(start + rng() % size);
  }
  const std::vector<uint64_t> addresses(svmas.begin(), svmas.end());

  std::vector<bench::Chain> ours;
  std::vector<bench::Positions> our_positions;
  for (const uint64_t a : addresses) {
    const auto info = (*map)->lookup(RelativeAddress{a - identity.base_vaddr});
    ours.push_back(bench::chain_of(info));
    our_positions.push_back(bench::positions_of(info));
  }
  // llvm-symbolizer reads the file with the DWARF and the full symbol table, as sprof does.
  std::vector<bench::Positions> their_positions;
  auto theirs = bench::run_llvm_symbolizer(llvm, debug_file, addresses, &their_positions);
  REQUIRE(theirs.has_value());
  ModuleAgreement a;
  a.names = bench::compare(ours, *theirs, bench::AliasIndex({path, debug_file}), addresses);
  a.positions = bench::compare_positions(our_positions, their_positions, addresses);
  for (const std::string& example : a.names.examples) MESSAGE(name << " " << example);
  MESSAGE(name << ": " << a.names.same_chain << " of " << a.names.total << " agree ("
               << a.names.same_chain_exact << " with the same alias), " << a.positions.same
               << " with the same file:line at every level");
  return a;
}

TEST_CASE("sprof names the same functions and inline frames as llvm-symbolizer") {
  const std::string llvm = bench::find_llvm_symbolizer();
  if (llvm.empty()) {
    MESSAGE("skipped: llvm-symbolizer is not installed (apt install llvm-14)");
    return;
  }
  std::mt19937_64 rng(500);
  bench::Agreement all;
  for (const std::string& path :
       {std::string("/lib/x86_64-linux-gnu/libc.so.6"),
        std::string("/lib/x86_64-linux-gnu/libm.so.6"),
        std::string("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"), std::string(test::kSprofExe)}) {
    all.add(measure(llvm, path, 125, rng).names);
  }
  CHECK(all.same_chain * 1000 >= all.total * 999);
}

// Names modulo the Rust hash (both sides are spelled by sprof's demangler); file:line too, after
// resolving "dir/.." in paths (llvm-symbolizer keeps it).
TEST_CASE(
    "Rust and clang/lld programs: the same functions, inline frames and lines as llvm-symbolizer") {
#ifndef SPROF_TOOLCHAIN_TARGETS
  MESSAGE("skipped: configured with -DSPROF_TOOLCHAIN_TARGETS=OFF");
#else
  const std::string llvm = bench::find_llvm_symbolizer();
  if (llvm.empty()) {
    MESSAGE("skipped: llvm-symbolizer is not installed (apt install llvm-14)");
    return;
  }
  std::mt19937_64 rng(501);
  for (const char* name : {"tc_rust", "tc_rust_v0", "tc_clang_lld"}) {
    CAPTURE(name);
    const ModuleAgreement a =
        measure(llvm, test::target_path(std::string("toolchains/") + name), 1000, rng);
    CHECK(a.names.same_chain * 1000 >= a.names.total * 999);
    CHECK(a.positions.same * 1000 >= a.positions.total * 999);
  }
#endif
}

}  // namespace
}  // namespace sprof::symbolicator
