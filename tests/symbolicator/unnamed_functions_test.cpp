// Code with no symbol and no DWARF: a copy of the symbols target stripped of everything but
// .dynsym and .eh_frame. Its functions are grouped by their .eh_frame FDEs and named
// "<module>+0x<start>"; the unstripped target's symbol table says where they really are.
#include <doctest/doctest.h>

#include <cstdio>

#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

const std::string kModule = "sprof_symbols_target";

std::string unnamed(uint64_t start) {
  char text[64];
  std::snprintf(text, sizeof text, "%s+0x%llx", kModule.c_str(),
                static_cast<unsigned long long>(start));
  return text;
}

std::shared_ptr<const SymbolMap> stripped_map(Symbolicator& symbolicator) {
  const std::string path = test::target_path("symbols/stripped/" + kModule);
  const auto identity = test::identity_of(path);
  REQUIRE_FALSE(identity.has_symtab);
  REQUIRE_FALSE(identity.has_debug_info);
  symbolicator.add_hint(ModuleHint{kModule, identity.breakpad_id(), path});
  auto map = symbolicator.module(kModule, identity.breakpad_id());
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  return *map;
}

SymbolicatorOptions no_debug_roots() {
  SymbolicatorOptions options;
  options.debug_roots.clear();
  return options;
}

TEST_CASE("every address of a function without symbol or DWARF gets one name: module + start") {
  Symbolicator symbolicator(no_debug_roots());
  const auto map = stripped_map(symbolicator);
  const std::string unstripped = test::target_path(kModule);
  const uint64_t v0 = test::identity_of(unstripped).base_vaddr;
  for (const char* mangled : {"_ZN12sprof_target12_GLOBAL__N_115hidden_functionEi",
                              "_ZN12sprof_target18inline_chain_outerEi", "main"}) {
    CAPTURE(mangled);
    const elf::ElfSymbol symbol = test::symbol_in(unstripped, mangled);
    const uint64_t start = symbol.address - v0;
    for (uint64_t a = start; a < start + symbol.size; ++a) {
      auto info = map->lookup(RelativeAddress{a});
      REQUIRE(info.has_value());
      CHECK(info->function == unnamed(start));
      CHECK(info->function_start == start);
      CHECK(info->function_size == symbol.size);
      CHECK(info->inlines.empty());
      CHECK(info->file.empty());
    }
  }
}

TEST_CASE("neighbouring unnamed functions stay apart") {
  Symbolicator symbolicator(no_debug_roots());
  const auto map = stripped_map(symbolicator);
  const std::string unstripped = test::target_path(kModule);
  const uint64_t v0 = test::identity_of(unstripped).base_vaddr;
  const elf::ElfSymbol a =
      test::symbol_in(unstripped, "_ZN12sprof_target12_GLOBAL__N_115hidden_functionEi");
  const elf::ElfSymbol b = test::symbol_in(unstripped, "_ZN12sprof_target19local_classes_outerEi");
  auto first = map->lookup(RelativeAddress{a.address - v0 + a.size - 1});
  auto second = map->lookup(RelativeAddress{b.address - v0});
  REQUIRE(first.has_value());
  REQUIRE(second.has_value());
  CHECK(first->function != second->function);
  CHECK(second->function == unnamed(b.address - v0));
}

}  // namespace
}  // namespace sprof::symbolicator
