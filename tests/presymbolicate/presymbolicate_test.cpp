// The presymbolication pass and the embedded-symbol source, over the real symbolicator: a
// profile whose frames point into sprof_symbols_target (tests/targets/symbols: named functions
// and a forced inline chain) and into a JIT's perf map, as the recorder would describe them.
#include "sprof/presymbolicate/presymbolicate.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sprof/core/jit_symbol_file.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof/presymbolicate/embedded_symbols.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/paths.hpp"
#include "sprof_test/processed_validator.hpp"

using namespace sprof;
namespace fs = std::filesystem;

namespace {

const std::string kTarget = std::string(test::kTargetsDir) + "/sprof_symbols_target";
constexpr uint64_t kBase = 0x7f0000000000ULL;  // where the "process" mapped the target
constexpr uint64_t kJitBase = 0x7e0000000000ULL;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("sprof-presym-test-" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

// The relative address (SVMA - v0) of a symbol of the target.
uint64_t relative_of(const std::string& mangled) {
  auto identity = elf::read_module_identity(kTarget);
  auto symbols = elf::read_symbols(kTarget);
  REQUIRE(identity.has_value());
  REQUIRE(symbols.has_value());
  auto symbol = elf::find_symbol(*symbols, mangled);
  REQUIRE_MESSAGE(symbol.has_value(), mangled);
  return symbol->address - identity->base_vaddr;
}

profile::Library target_lib(const std::string& path) {
  auto identity = elf::read_module_identity(kTarget);
  REQUIRE(identity.has_value());
  profile::Library lib;
  lib.start = kBase;
  lib.end = kBase + 0x100000;
  lib.offset = 0;  // relative = AVMA - kBase
  lib.name = lib.debug_name = "sprof_symbols_target";
  lib.path = lib.debug_path = path;
  lib.breakpad_id = identity->breakpad_id();
  lib.code_id = identity->code_id();
  return lib;
}

// The first address in inline_chain_outer where chain_a, chain_b and chain_c are all inlined.
uint64_t inline_address(symbolicator::Symbolicator& symbolicator, const profile::Library& lib) {
  auto map = symbolicator.module(lib.debug_name, lib.breakpad_id);
  REQUIRE(map.has_value());
  const uint64_t outer = relative_of("_ZN12sprof_target18inline_chain_outerEi");
  for (uint64_t a = outer; a < outer + 0x200; ++a) {
    const auto info = (*map)->lookup(RelativeAddress{a});
    if (info && info->inlines.size() == 3) return a;
  }
  FAIL("no address with three inline levels");
  return 0;
}

// One thread: main -> c_linkage_function -> inline_chain_outer's inlined code (the leaf), and a
// JIT frame called from main; plus a lib nothing can be found for.
profile::Profile make_profile(const profile::Library& target, uint64_t inline_relative,
                              const std::vector<profile::Library>& more_libs) {
  profile::Profile p;
  profile::Process process;
  process.pid = 100;
  process.name = "target";
  process.libs = more_libs;
  process.libs.push_back(target);
  profile::Thread t;
  t.name = "GeckoMain";
  t.tid = 100;
  using profile::Category;
  // Return addresses one byte into each function: looked up at the function's first byte.
  const uint64_t main_call = kBase + relative_of("main") + 1;
  const uint64_t c_call = kBase + relative_of("c_linkage_function") + 1;
  const uint32_t root =
      t.intern_stack(std::nullopt, t.intern_address_frame(main_call, Category::kUser));
  const uint32_t middle = t.intern_stack(root, t.intern_address_frame(c_call, Category::kUser));
  const uint32_t leaf =
      t.intern_stack(middle, t.intern_address_frame(kBase + inline_relative, Category::kUser));
  t.add_sample(profile::Sample{leaf, 1.0, 0});
  for (const profile::Library& lib : more_libs) {
    const uint32_t other =
        t.intern_stack(root, t.intern_address_frame(lib.start + 4, Category::kJit));
    t.add_sample(profile::Sample{other, 2.0, 0});
  }
  process.threads.push_back(std::move(t));
  p.processes.push_back(std::move(process));
  return p;
}

// A perf map naming one JIT function at kJitBase, and the lib the recorder makes for it.
profile::Library jit_lib(const TempDir& dir) {
  const std::string path = (dir.path / "perf-100.map").string();
  char line[128];
  std::snprintf(line, sizeof line, "%llx 40 jitted_function\n",
                static_cast<unsigned long long>(kJitBase));
  std::ofstream(path) << line;
  profile::Library lib;
  lib.start = kJitBase;
  lib.end = kJitBase + 0x40;
  lib.offset = 0;  // relative = AVMA - base, the base travelling in the breakpadId
  lib.name = lib.debug_name = "perf-100.map";
  lib.path = lib.debug_path = path;
  lib.breakpad_id = jit_breakpad_id(kJitBase, jit_content_hash(line));
  return lib;
}

profile::Library missing_lib() {
  profile::Library lib;
  lib.start = 0x7d0000000000ULL;
  lib.end = lib.start + 0x1000;
  lib.name = lib.debug_name = "libgone.so";
  lib.path = lib.debug_path = "/nonexistent/libgone.so";
  lib.breakpad_id = "00112233445566778899AABBCCDDEEFF0";
  return lib;
}

symbolicator::SymbolicatorOptions options_for(const profile::Profile& profile) {
  symbolicator::SymbolicatorOptions options;
  options.hints = presymbolicate::module_hints(profile);
  return options;
}

}  // namespace

TEST_CASE("presymbolication names a real binary's frames with their inline chain") {
  TempDir dir;
  symbolicator::SymbolicatorOptions hints;
  const profile::Library target = target_lib(kTarget);
  hints.hints.push_back({target.debug_name, target.breakpad_id, kTarget});
  symbolicator::Symbolicator probe(hints);
  const uint64_t inline_relative = inline_address(probe, target);

  const auto profile = make_profile(target, inline_relative, {jit_lib(dir), missing_lib()});
  symbolicator::Symbolicator symbolicator(options_for(profile));
  const auto result = presymbolicate::presymbolicate(profile, symbolicator);

  const auto* module = result.symbols.find_module({target.debug_name, target.breakpad_id});
  REQUIRE(module != nullptr);
  const auto* leaf = module->find(inline_relative);
  REQUIRE(leaf != nullptr);
  CHECK(leaf->function == "sprof_target::inline_chain_outer(int)");
  REQUIRE(leaf->inlines.size() == 3);
  CHECK(leaf->inlines[0].function.find("chain_c") != std::string::npos);
  CHECK(leaf->inlines[2].function.find("chain_a") != std::string::npos);
  CHECK(fs::path(leaf->inlines[0].file).filename() == "inline_chain.cpp");
  CHECK(leaf->inlines[0].line > 0);
  // Callers are looked up inside their call instruction, one byte before the return address.
  const auto* main_entry = module->find(relative_of("main"));
  REQUIRE(main_entry != nullptr);
  CHECK(main_entry->function == "main");
  const auto* jit = result.symbols.find_module({"perf-100.map", jit_lib(dir).breakpad_id});
  REQUIRE(jit != nullptr);
  REQUIRE(jit->find(4) != nullptr);
  CHECK(jit->find(4)->function == "jitted_function");

  // The missing lib is reported, with why; the others are counted.
  const auto missing = result.report.missing();
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->module.debug_name == "libgone.so");
  CHECK_FALSE(missing[0]->error.empty());
  CHECK(result.report.modules.size() == 3);
  CHECK(result.report.named == result.report.addresses - missing[0]->addresses);

  // The self-contained file of it passes the static checks.
  const std::string json = profile::processed_json_string(profile, result.symbols);
  const auto problems = test::check_processed_profile(json, {.expect_cpu_deltas = true});
  INFO(test::join_problems(problems));
  CHECK(problems.empty());
}

TEST_CASE("a self-contained file answers for a module whose binary is gone, without its source") {
  TempDir dir;
  const std::string copy = (dir.path / "sprof_symbols_target").string();
  fs::copy_file(kTarget, copy);
  const profile::Library target = target_lib(copy);
  symbolicator::SymbolicatorOptions hints;
  hints.hints.push_back({target.debug_name, target.breakpad_id, copy});
  symbolicator::Symbolicator probe(hints);
  const uint64_t inline_relative = inline_address(probe, target);
  const auto profile = make_profile(target, inline_relative, {});
  {
    symbolicator::Symbolicator symbolicator(options_for(profile));
    auto saved = presymbolicate::save_self_contained(profile, symbolicator,
                                                     (dir.path / "p.json.gz").string());
    REQUIRE_MESSAGE(saved.has_value(), saved.error().message);
    CHECK(saved->bytes == fs::file_size(dir.path / "p.json.gz"));
  }

  // Binary present: the live symbolicator answers, with its files.
  {
    symbolicator::Symbolicator live(options_for(profile));
    presymbolicate::EmbeddedFallbackModuleSource source(live, (dir.path / "p.json.gz").string());
    auto map = source.module(target.debug_name, target.breakpad_id);
    REQUIRE(map.has_value());
    CHECK((*map)->binary_file() == copy);
  }
  fs::remove(copy);
  symbolicator::Symbolicator live(options_for(profile));
  presymbolicate::EmbeddedFallbackModuleSource source(live, (dir.path / "p.json.gz").string());
  auto map = source.module(target.debug_name, target.breakpad_id);
  REQUIRE_MESSAGE(map.has_value(), map.error().message);
  const auto info = (*map)->lookup(RelativeAddress{inline_relative});
  REQUIRE(info.has_value());
  CHECK(info->function == "sprof_target::inline_chain_outer(int)");
  CHECK(info->inlines.size() == 3);
  CHECK((*map)->binary_file().empty());
  CHECK_FALSE((*map)->names_source_file(info->inlines[0].file));
  // Unknown modules stay unknown.
  CHECK_FALSE(source.module("libgone.so", "00112233445566778899AABBCCDDEEFF0").has_value());
}

TEST_CASE("saving into a directory that does not exist fails and writes nothing") {
  TempDir dir;
  profile::Profile empty;
  symbolicator::Symbolicator symbolicator(symbolicator::SymbolicatorOptions{});
  const std::string path = (dir.path / "missing" / "p.json").string();
  auto saved = presymbolicate::save_self_contained(empty, symbolicator, path);
  CHECK_FALSE(saved.has_value());
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("module hints name each lib's path and debug path once") {
  profile::Profile p;
  profile::Process process;
  profile::Library lib;
  lib.debug_name = "a.so";
  lib.breakpad_id = "ABC0";
  lib.path = "/lib/a.so";
  lib.debug_path = "/usr/lib/debug/a.so";
  process.libs = {lib, lib};
  profile::Library no_id = lib;
  no_id.breakpad_id.clear();
  process.libs.push_back(no_id);
  p.processes.push_back(process);
  const auto hints = presymbolicate::module_hints(p);
  REQUIRE(hints.size() == 2);
  CHECK(hints[0].path == "/lib/a.so");
  CHECK(hints[1].path == "/usr/lib/debug/a.so");
}
