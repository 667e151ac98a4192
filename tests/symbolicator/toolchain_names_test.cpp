// Names in the Rust and clang/lld programs of tests/targets/toolchains.cmake as their users read
// them (rustfilt / perf report): Rust paths without the hash, `<T as Trait>::method`, closures,
// v0's generic arguments, and the inline frames of core/alloc/std with their source lines.
// Symbols are found by their demangled name, since Rust's hashes change with the compiler.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "sprof/symbolicator/demangle.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

#ifdef SPROF_TOOLCHAIN_TARGETS

struct Program {
  std::string path;
  elf::ModuleIdentity identity;
  std::shared_ptr<const SymbolMap> map;

  explicit Program(const std::string& name)
      : path(test::target_path("toolchains/" + name)), identity(test::identity_of(path)) {
    Symbolicator symbolicator(SymbolicatorOptions{});
    symbolicator.add_hint(ModuleHint{name, identity.breakpad_id(), path});
    auto found = symbolicator.module(name, identity.breakpad_id());
    REQUIRE(found.has_value());
    map = *found;
  }

  // The function symbol whose demangled name is `name`.
  elf::ElfSymbol function(const std::string& name) const {
    auto symbols = elf::read_symbols(path);
    REQUIRE(symbols.has_value());
    for (const elf::ElfSymbol& s : *symbols) {
      if (s.size > 0 && demangle(s.name) == name) return s;
    }
    FAIL("no function " << name << " in " << path);
    return {};
  }

  // A function symbol whose demangled name contains `part`.
  elf::ElfSymbol function_naming(const std::string& part) const {
    auto symbols = elf::read_symbols(path);
    REQUIRE(symbols.has_value());
    for (const elf::ElfSymbol& s : *symbols) {
      if (s.size > 0 && demangle(s.name).find(part) != std::string::npos) return s;
    }
    FAIL("no function naming " << part << " in " << path);
    return {};
  }

  // What sprof names the middle of the function called `name`.
  std::string name_inside(const std::string& name) const {
    const elf::ElfSymbol s = function(name);
    auto info = map->lookup(RelativeAddress{s.address + s.size / 2 - identity.base_vaddr});
    REQUIRE(info.has_value());
    return info->function;
  }
};

TEST_CASE("Rust functions are named as rustfilt names them, legacy and v0 mangling alike") {
  for (const std::string name : {"tc_rust", "tc_rust_v0"}) {
    CAPTURE(name);
    const Program program(name);
    CHECK(program.name_inside("tc_rust::mix_leaf") == "tc_rust::mix_leaf");
    CHECK(program.name_inside("<tc_rust::Doubler as tc_rust::Transform>::apply") ==
          "<tc_rust::Doubler as tc_rust::Transform>::apply");
  }
  // Legacy mangling names a generic function without its arguments and a closure {{closure}};
  // v0 keeps the arguments and numbers closures.
  const Program legacy("tc_rust");
  CHECK(legacy.name_inside("tc_rust::apply_to_all") == "tc_rust::apply_to_all");
  // A std generic instantiated with the closure that run_workers gives thread::Builder::spawn;
  // which one depends on std's internals, so it is found by the closure's name.
  const elf::ElfSymbol with_closure = legacy.function_naming("tc_rust::run_workers::{{closure}}");
  CHECK(legacy.name_inside(demangle(with_closure.name)) == demangle(with_closure.name));
  CHECK(Program("tc_rust_v0")
            .name_inside("tc_rust::apply_to_all::<tc_rust::sums_worker::{closure#0}>") ==
        "tc_rust::apply_to_all::<tc_rust::sums_worker::{closure#0}>");
}

TEST_CASE("Rust's own inline frames appear inside the program's functions, with std's lines") {
  for (const std::string name : {"tc_rust", "tc_rust_v0"}) {
    CAPTURE(name);
    const Program program(name);
    const elf::ElfSymbol count_words = program.function("tc_rust::count_words");
    std::set<std::string> inlined;
    bool std_line = false;
    for (uint64_t a = count_words.address; a < count_words.address + count_words.size; ++a) {
      auto info = program.map->lookup(RelativeAddress{a - program.identity.base_vaddr});
      REQUIRE(info.has_value());
      CHECK(info->function == "tc_rust::count_words");
      for (const InlineFrame& frame : info->inlines) {
        inlined.insert(frame.function);
        std_line |=
            frame.file.find("/library/core/src/str/") != std::string::npos && frame.line > 0;
      }
    }
    // `text.split_whitespace()` and `counts.entry(...)`, inlined from core and std. The generic
    // HashMap is instantiated in (and mangled by) the program: without its arguments in legacy
    // mangling ("HashMap<K,V,S,A>::entry"), with them in v0 ("<HashMap<String, u64>>::entry").
    CHECK(inlined.contains(
        "<core::str::iter::SplitWhitespace as core::iter::traits::iterator::Iterator>::next"));
    CHECK(inlined.contains(name == "tc_rust"
                               ? "std::collections::hash::map::HashMap<K,V,S,A>::entry"
                               : "<std::collections::hash::map::HashMap<alloc::string::String, "
                                 "u64>>::entry"));
    CHECK(std_line);
  }
}

TEST_CASE("clang/lld functions are named with their C++ signatures") {
  const Program program("tc_clang_lld");
  CHECK(program.name_inside("tc::mix_leaf(unsigned long)") == "tc::mix_leaf(unsigned long)");
  CHECK(program.name_inside("tc::Doubler::apply(unsigned long) const") ==
        "tc::Doubler::apply(unsigned long) const");
}

#else

TEST_CASE("Rust and clang/lld names: skipped") {
  MESSAGE("skipped: configured with -DSPROF_TOOLCHAIN_TARGETS=OFF");
}

#endif

}  // namespace
}  // namespace sprof::symbolicator
