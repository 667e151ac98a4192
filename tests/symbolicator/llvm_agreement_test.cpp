// sprof's symbolication against llvm-symbolizer's on random in-function addresses of libc, libm,
// libstdc++ and the sprof binary (the benchmark, bench/symbolicate.cpp, does 10,000; this test
// 500): at least 99.9 % must name the same functions at every inline level (see
// bench/symbolizer_agreement.hpp for what counts as the same). Skipped, saying why, when
// llvm-symbolizer is not installed.
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

constexpr size_t kAddressesPerModule = 125;

// Thunks are left out of the sample: GCC copies the adjusted function's body into them and
// describes it in DWARF, which llvm-symbolizer 14 does not find for them (it reports the thunk
// without inline frames); docs/benchmarks.md shows such cases.
bool is_thunk(const std::string& mangled) {
  return mangled.starts_with("_ZTh") || mangled.starts_with("_ZTv") || mangled.starts_with("_ZTc");
}

TEST_CASE("sprof names the same functions and inline frames as llvm-symbolizer") {
  const std::string llvm = bench::find_llvm_symbolizer();
  if (llvm.empty()) {
    MESSAGE("skipped: llvm-symbolizer is not installed (apt install llvm-14)");
    return;
  }
  std::mt19937_64 rng(500);
  bench::Agreement all;
  for (const std::string& path : {std::string("/lib/x86_64-linux-gnu/libc.so.6"),
                                 std::string("/lib/x86_64-linux-gnu/libm.so.6"),
                                 std::string("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
                                 std::string(test::kSprofExe)}) {
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
    while (svmas.size() < kAddressesPerModule) {
      const auto& [start, size] = list[rng() % list.size()];
      svmas.insert(start + rng() % size);
    }
    const std::vector<uint64_t> addresses(svmas.begin(), svmas.end());

    std::vector<bench::Chain> ours;
    for (const uint64_t a : addresses) {
      ours.push_back(bench::chain_of((*map)->lookup(RelativeAddress{a - identity.base_vaddr})));
    }
    // llvm-symbolizer reads the file with the DWARF and the full symbol table, as sprof does.
    auto theirs = bench::run_llvm_symbolizer(llvm, debug_file, addresses);
    REQUIRE(theirs.has_value());
    const bench::Agreement a =
        bench::compare(ours, *theirs, bench::AliasIndex({path, debug_file}), addresses);
    for (const std::string& example : a.examples) MESSAGE(name << " " << example);
    MESSAGE(name << ": " << a.same_chain << " of " << a.total << " agree (" << a.same_chain_exact
                 << " with the same alias)");
    all.add(a);
  }
  CHECK(all.same_chain * 1000 >= all.total * 999);
}

}  // namespace
}  // namespace sprof::symbolicator
