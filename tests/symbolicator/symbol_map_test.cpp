// Symbol maps of the programs from tests/targets/symbols.cmake: names, extents, lines and the
// forced inline chain, for a PIE, a non-PIE program, split DWARF and a shared library.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cctype>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sprof/symbolicator/demangle.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

using test::basename_of;
using test::target_path;

struct Module {
  std::string path;
  elf::ModuleIdentity identity;
  std::shared_ptr<const SymbolMap> map;
};

Module open_module(Symbolicator& symbolicator, const std::string& path) {
  Module m{path, test::identity_of(path), nullptr};
  const std::string name = basename_of(path);
  symbolicator.add_hint(ModuleHint{name, m.identity.breakpad_id(), path});
  auto map = symbolicator.module(name, m.identity.breakpad_id());
  REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
  m.map = *map;
  return m;
}

SymbolicatorOptions no_system_roots() {
  SymbolicatorOptions options;
  options.debug_roots.clear();
  return options;
}

// Looks up the byte `offset` into the function whose symbol is `mangled`.
SymbolInfo lookup_in(const Module& m, const std::string& mangled, uint64_t offset = 0) {
  const elf::ElfSymbol symbol = test::symbol_in(m.path, mangled);
  const uint64_t relative = symbol.address - m.identity.base_vaddr;
  auto info = m.map->lookup(RelativeAddress{relative + offset});
  REQUIRE_MESSAGE(info.has_value(), mangled);
  CHECK(info->function_start == relative);
  CHECK(info->function_size == symbol.size);
  return *info;
}

// The first address in inline_chain_outer where all three inlined functions are active.
std::optional<SymbolInfo> deepest_chain(const Module& m) {
  const elf::ElfSymbol outer = test::symbol_in(m.path, "_ZN12sprof_target18inline_chain_outerEi");
  const uint64_t start = outer.address - m.identity.base_vaddr;
  for (uint64_t a = start; a < start + outer.size; ++a) {
    auto info = m.map->lookup(RelativeAddress{a});
    if (info && info->inlines.size() == 3) return info;
  }
  return std::nullopt;
}

void check_inline_chain(const Module& m) {
  auto info = deepest_chain(m);
  REQUIRE_MESSAGE(info.has_value(), "no address with three inline levels in " << m.path);
  const std::string source = test::symbols_source("inline_chain.cpp");
  // Innermost first: chain_c at its own line, chain_b where it called chain_c, chain_a where it
  // called chain_b; the outer function's line is where it called chain_a.
  CHECK(info->inlines[0].function.find("chain_c") != std::string::npos);
  CHECK(info->inlines[1].function.find("chain_b") != std::string::npos);
  CHECK(info->inlines[2].function.find("chain_a") != std::string::npos);
  CHECK(info->function == "sprof_target::inline_chain_outer(int)");
  for (const InlineFrame& f : info->inlines) CHECK(basename_of(f.file) == "inline_chain.cpp");
  CHECK(basename_of(info->file) == "inline_chain.cpp");
  const uint32_t body_c = test::marker_line(source, "body_c");
  CHECK(info->inlines[0].line >= body_c);
  CHECK(info->inlines[0].line <= body_c + 1);
  CHECK(info->inlines[1].line == test::marker_line(source, "call_c"));
  CHECK(info->inlines[2].line == test::marker_line(source, "call_b"));
  CHECK(info->line == test::marker_line(source, "call_a"));
}

TEST_CASE("named functions of a PIE program symbolicate with demangled names, extents and lines") {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path("sprof_symbols_target"));
  CHECK(m.map->binary_file() == m.path);
  CHECK(m.map->debug_file() == m.path);

  SymbolInfo leaf = lookup_in(m, "_ZN12sprof_target19named_leaf_functionEi", 2);
  CHECK(leaf.function == "sprof_target::named_leaf_function(int)");
  CHECK(basename_of(leaf.file) == "main.cpp");
  CHECK(leaf.line > 0);
  CHECK(leaf.inlines.empty());

  SymbolInfo c_function = lookup_in(m, "c_linkage_function");
  CHECK(c_function.function == "c_linkage_function");
  CHECK(c_function.line > 0);

  SymbolInfo templated = lookup_in(m, "_ZN12sprof_target18templated_functionIlEET_S1_");
  CHECK(templated.function == "long sprof_target::templated_function<long>(long)");

  SymbolInfo main_info = lookup_in(m, "main");
  CHECK(main_info.function == "main");
  CHECK(basename_of(main_info.file) == "main.cpp");
}

TEST_CASE("the forced inline chain comes back innermost first with each caller's call line") {
  Symbolicator symbolicator(no_system_roots());
  check_inline_chain(open_module(symbolicator, target_path("sprof_symbols_target")));
}

TEST_CASE("a non-PIE program is addressed relative to its first PT_LOAD") {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path("sprof_symbols_nopie"));
  REQUIRE(m.identity.base_vaddr == 0x400000);
  SymbolInfo leaf = lookup_in(m, "_ZN12sprof_target19named_leaf_functionEi", 1);
  CHECK(leaf.function == "sprof_target::named_leaf_function(int)");
  check_inline_chain(m);
}

// -gsplit-dwarf: the program's units are skeletons; functions, inline trees and call lines come
// from the .dwo files next to the objects, line rows from the program's own line table.
void check_split_dwarf(const std::string& program) {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path(program));
  SymbolInfo leaf = lookup_in(m, "_ZN12sprof_target19named_leaf_functionEi", 2);
  CHECK(leaf.function == "sprof_target::named_leaf_function(int)");
  CHECK(basename_of(leaf.file) == "main.cpp");
  CHECK(leaf.line > 0);
  check_inline_chain(m);
}

TEST_CASE("a split-DWARF program (DWARF 5) is read from its .dwo files") {
  check_split_dwarf("sprof_symbols_split_dwarf5");
}

TEST_CASE("a split-DWARF program (DWARF 4, GNU extension) is read from its .dwo files") {
  check_split_dwarf("sprof_symbols_split_dwarf4");
}

TEST_CASE("a split-DWARF program whose .dwo is missing is named from its symbol table") {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path("symbols/sprof_symbols_dwo_missing"));
  SymbolInfo info = lookup_in(m, "_Z17relative_functioni", 1);
  CHECK(info.function == "relative_function(int)");
  CHECK(info.inlines.empty());
  // The line rows are the program's own (the skeleton's), so they still answer.
  const std::string source = test::symbols_source("relative_paths.cpp");
  CHECK(info.file == source);
  CHECK(info.line == test::marker_line(source, "relative_body"));
}

TEST_CASE("a split-DWARF program whose .dwo path names a FIFO is not blocked by it") {
  // libdw looks for the .dwo next to the program first, and would wait in open(2) for a writer.
  test::TempDir dir;
  const std::string path =
      dir.copy_in(target_path("symbols/sprof_symbols_dwo_missing"), "sprof_symbols_dwo_missing");
  REQUIRE(mkfifo((dir.path() + "/relative_paths.dwo").c_str(), 0600) == 0);
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, path);
  SymbolInfo info = lookup_in(m, "_Z17relative_functioni", 1);
  CHECK(info.function == "relative_function(int)");
  CHECK(info.line ==
        test::marker_line(test::symbols_source("relative_paths.cpp"), "relative_body"));
}

TEST_CASE("a shared library's C and C++ member functions symbolicate") {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path("libsprof_symbols_shared.so"));
  SymbolInfo member = lookup_in(m, "_ZNK12sprof_shared6Widget7computeEi", 3);
  CHECK(member.function == "sprof_shared::Widget::compute(int) const");
  CHECK(basename_of(member.file) == "shared_lib.cpp");
  CHECK(member.line > 0);
  SymbolInfo c_function = lookup_in(m, "sprof_shared_c_function");
  CHECK(c_function.function == "sprof_shared_c_function");
  CHECK(m.map->names_source_file(member.file));
  CHECK_FALSE(m.map->names_source_file("/etc/passwd"));
}

// The first address of the function whose demangled symbol name is `name` where a function
// named `inlined` is inlined.
std::optional<SymbolInfo> with_inline_frame(const Module& m, const std::string& name,
                                            const std::string& inlined) {
  auto symbols = elf::read_symbols(m.path);
  REQUIRE(symbols.has_value());
  for (const elf::ElfSymbol& s : *symbols) {
    if (demangle(s.name) != name) continue;
    const uint64_t start = s.address - m.identity.base_vaddr;
    for (uint64_t a = start; a < start + s.size; ++a) {
      auto info = m.map->lookup(RelativeAddress{a});
      if (info && !info->inlines.empty() && info->inlines[0].function == inlined) return info;
    }
  }
  return std::nullopt;
}

TEST_CASE("code inlined into a lambda and into a local class's member function has inline frames") {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path("sprof_symbols_target"));
  const std::string source = test::symbols_source("local_classes.cpp");
  struct Case {
    std::string function;
    std::string helper;
    std::string helper_marker;
    std::string call_marker;
  };
  for (const Case& c :
       {Case{"sprof_target::with_local_classes(int)::{lambda(int)#1}::operator()(int) const",
             "sprof_target::lambda_helper(int)", "lambda_helper", "lambda_body"},
        Case{"sprof_target::with_local_classes(int)::Local::member(int)",
             "sprof_target::member_helper(int)", "member_helper", "member_body"}}) {
    CAPTURE(c.function);
    auto info = with_inline_frame(m, c.function, c.helper);
    REQUIRE_MESSAGE(info.has_value(), "no inline frame of " << c.helper);
    CHECK(info->function == c.function);
    CHECK(info->inlines.size() == 1);
    CHECK(info->inlines[0].line == test::marker_line(source, c.helper_marker));
    CHECK(info->line == test::marker_line(source, c.call_marker));
  }
}

TEST_CASE("a function of internal linkage is named with its scopes, as its symbol spells it") {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path("sprof_symbols_target"));
  // DWARF calls it just "hidden_function"; the symbol table knows where it lives.
  SymbolInfo hidden = lookup_in(m, "_ZN12sprof_target12_GLOBAL__N_115hidden_functionEi", 2);
  CHECK(hidden.function == "sprof_target::(anonymous namespace)::hidden_function(int)");
}

TEST_CASE("a function with a public alias is named by that alias") {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path("libsprof_symbols_shared.so"));
  // DWARF and the implementation's symbol say "__sprof_shared_impl"; the exported weak alias is
  // the name callers know.
  SymbolInfo info = lookup_in(m, "__sprof_shared_impl", 1);
  CHECK(info.function == "sprof_shared_public");
  CHECK(basename_of(info.file) == "shared_lib.cpp");
}

TEST_CASE("addresses outside every function are not symbolicated") {
  Symbolicator symbolicator(no_system_roots());
  const Module m = open_module(symbolicator, target_path("libsprof_symbols_shared.so"));
  CHECK_FALSE(m.map->lookup(RelativeAddress{0}).has_value());
  CHECK_FALSE(m.map->lookup(RelativeAddress{uint64_t{1} << 40}).has_value());
}

TEST_CASE("a module is built once and shared between requests and threads") {
  Symbolicator symbolicator(no_system_roots());
  const std::string path = target_path("sprof_symbols_target");
  const std::string id = test::identity_of(path).breakpad_id();
  symbolicator.add_hint(ModuleHint{"sprof_symbols_target", id, path});
  const std::string lib = target_path("libsprof_symbols_shared.so");
  const std::string lib_id = test::identity_of(lib).breakpad_id();
  symbolicator.add_hint(ModuleHint{"libsprof_symbols_shared.so", lib_id, lib});

  std::vector<const SymbolMap*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] {
      auto map = i % 2 == 0 ? symbolicator.module("sprof_symbols_target", id)
                            : symbolicator.module("libsprof_symbols_shared.so", lib_id);
      if (map) seen[i] = map->get();
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < seen.size(); ++i) {
    REQUIRE(seen[i] != nullptr);
    CHECK(seen[i] == seen[i % 2]);
  }
  CHECK(seen[0] != seen[1]);
  // The breakpad id is matched case-insensitively.
  std::string lower = id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto again = symbolicator.module("sprof_symbols_target", lower);
  REQUIRE(again.has_value());
  CHECK(again->get() == seen[0]);
}

}  // namespace
}  // namespace sprof::symbolicator

namespace sprof::symbolicator {
namespace {

// Every field of a lookup, as one comparable string.
std::string describe(const std::optional<SymbolInfo>& info) {
  if (!info) return "-";
  std::string out = info->function + "+" + std::to_string(info->function_start) + "/" +
                    std::to_string(info->function_size) + "@" + info->file + ":" +
                    std::to_string(info->line);
  for (const InlineFrame& f : info->inlines) {
    out += " <" + f.function + "@" + f.file + ":" + std::to_string(f.line) + ">";
  }
  return out;
}

TEST_CASE("lookups answer the same whether prepared on several threads or read one at a time") {
  const std::string path = target_path("sprof_symbols_target");
  const elf::ElfSymbol outer = test::symbol_in(path, "_ZN12sprof_target18inline_chain_outerEi");
  Symbolicator one_at_a_time(no_system_roots());
  Symbolicator prepared(no_system_roots());
  const Module a = open_module(one_at_a_time, path);
  const Module b = open_module(prepared, path);
  REQUIRE(a.map != b.map);
  // Every byte from the start of the text up to past the inline chain's function.
  const uint64_t end = outer.address - a.identity.base_vaddr + outer.size + 64;
  std::vector<RelativeAddress> addresses;
  for (uint64_t address = 0; address < end; ++address)
    addresses.push_back(RelativeAddress{address});
  b.map->prepare(addresses);
  size_t differ = 0;
  size_t with_inlines = 0;
  for (const RelativeAddress address : addresses) {
    const auto expected = a.map->lookup(address);
    if (expected && !expected->inlines.empty()) ++with_inlines;
    if (describe(expected) != describe(b.map->lookup(address))) ++differ;
  }
  CHECK(with_inlines > 0);  // the comparison covers inline chains
  CHECK(differ == 0);
}

}  // namespace
}  // namespace sprof::symbolicator
