#include "sprof/elf/module_identity.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include "symbols_test_support.hpp"

namespace sprof::elf {
namespace {

using test::identity_of;
using test::target_path;

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// The build-id as `readelf -n` prints it, to check ours against an independent reader.
std::string readelf_build_id(const std::string& path) {
  const std::string out = test::run_command("readelf -n '" + path + "' 2>/dev/null");
  const std::string key = "Build ID: ";
  const size_t at = out.find(key);
  REQUIRE(at != std::string::npos);
  return out.substr(at + key.size(), out.find('\n', at) - at - key.size());
}

TEST_CASE("module identity of a PIE program has its GNU build-id and v0 = 0") {
  const std::string path = target_path("sprof_symbols_target");
  const ModuleIdentity id = identity_of(path);
  CHECK(id.has_gnu_build_id);
  CHECK(id.build_id.code_id() == readelf_build_id(path));
  CHECK(id.breakpad_id() == id.build_id.breakpad_id(true));
  CHECK(id.breakpad_id().size() == 33);
  CHECK(id.code_id() == id.build_id.code_id());
  CHECK(id.base_vaddr == 0);
  CHECK(id.arch() == "x86_64");
  CHECK(id.has_debug_info);
  CHECK(id.has_symtab);
  CHECK(id.debuglink.empty());
  REQUIRE_FALSE(id.loads.empty());
  bool has_exec = false;
  for (const LoadSegment& s : id.loads) has_exec |= s.executable;
  CHECK(has_exec);
}

TEST_CASE("module identity of a non-PIE program reports v0 as the first PT_LOAD's p_vaddr") {
  const ModuleIdentity id = identity_of(target_path("sprof_symbols_nopie"));
  CHECK(id.base_vaddr == 0x400000);
  CHECK(id.loads.front().vaddr == 0x400000);
}

TEST_CASE("a mapping's page offset becomes an SVMA through the PT_LOAD that maps it") {
  const ModuleIdentity id = identity_of(target_path("sprof_symbols_nopie"));
  const LoadSegment* text = nullptr;
  for (const LoadSegment& s : id.loads) {
    if (s.executable) text = &s;
  }
  REQUIRE(text != nullptr);
  const auto svma = id.svma_of_mapping(sprof::FileOffset{text->offset + 0x10}, true);
  REQUIRE(svma.has_value());
  CHECK(svma->value == text->vaddr + 0x10);
  CHECK(id.relative(*svma).value == text->vaddr + 0x10 - 0x400000);
  CHECK(id.svma(id.relative(*svma)) == *svma);
  CHECK_FALSE(id.svma_of_mapping(sprof::FileOffset{uint64_t{1} << 40}, true).has_value());
}

// LLD and mold pack segments into shared file pages and shift p_vaddr by a page instead
// (readelf -lW: LOAD 0x014320 0x15320 ... R E after LOAD 0x0 0x0 0x1431c R). The loader maps the
// executable segment from file page 0x14000 at SVMA 0x15000; the page also holds the end of
// the read-only segment, whose own mapping starts at 0.
TEST_CASE("segments that share a file page: the mapping's permission picks the segment") {
  ModuleIdentity id;
  id.base_vaddr = 0;
  id.loads = {
      {0x0, 0x0, 0x1431c, 0x1431c, 0x1000, false},
      {0x15320, 0x14320, 0x40890, 0x40890, 0x1000, true},
      {0x56bb0, 0x54bb0, 0x2a40, 0x3450, 0x1000, false},
  };
  const auto code = id.svma_of_mapping(sprof::FileOffset{0x14000}, true);
  REQUIRE(code.has_value());
  CHECK(code->value == 0x15000);
  const auto data = id.svma_of_mapping(sprof::FileOffset{0x14000}, false);
  REQUIRE(data.has_value());
  CHECK(data->value == 0x14000);
  // A later page of the code segment (a mapping split by mprotect).
  CHECK(id.svma_of_mapping(sprof::FileOffset{0x20000}, true)->value == 0x21000);
  // And back: the code's bytes lie a page lower in the file than their SVMA says.
  CHECK(id.file_offset_of(sprof::Svma{0x15320})->value == 0x14320);
  CHECK(id.file_offset_of(sprof::Svma{0x20000})->value == 0x1f000);
  CHECK_FALSE(id.file_offset_of(sprof::Svma{0x59800}).has_value());  // .bss: not in the file
}

TEST_CASE("separate debug file and stripped copies keep the build-id") {
  const ModuleIdentity original = identity_of(target_path("sprof_symbols_target"));
  const ModuleIdentity debug = identity_of(target_path("symbols/sprof_symbols_target.debug"));
  const ModuleIdentity stripped =
      identity_of(target_path("symbols/by_build_id/sprof_symbols_target"));
  const ModuleIdentity linked =
      identity_of(target_path("symbols/by_debuglink/sprof_symbols_target"));
  CHECK(debug.build_id == original.build_id);
  CHECK(stripped.build_id == original.build_id);
  CHECK(debug.has_debug_info);
  CHECK_FALSE(stripped.has_debug_info);
  CHECK(stripped.debuglink.empty());
  CHECK(linked.debuglink == "sprof_symbols_target.debug");
  CHECK(linked.debuglink_crc != 0);
}

TEST_CASE("module identity read from memory equals the one read from the file") {
  const std::string path = target_path("libsprof_symbols_shared.so");
  const std::vector<uint8_t> bytes = file_bytes(path);
  auto from_memory = read_module_identity(bytes);
  REQUIRE(from_memory.has_value());
  const ModuleIdentity from_file = identity_of(path);
  CHECK(from_memory->build_id == from_file.build_id);
  CHECK(from_memory->base_vaddr == from_file.base_vaddr);
  CHECK(from_memory->loads.size() == from_file.loads.size());
}

TEST_CASE("module identity of a missing file is kNotFound and of a non-ELF file kMalformed") {
  auto missing = read_module_identity(std::string("/nonexistent/sprof/lib.so"));
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Errc::kNotFound);
  auto text = read_module_identity(test::symbols_source("main.cpp"));
  REQUIRE_FALSE(text.has_value());
  CHECK(text.error().code == Errc::kMalformed);
  const std::vector<uint8_t> garbage = {1, 2, 3};
  CHECK_FALSE(read_module_identity(garbage).has_value());
}

TEST_CASE("GNU build-id note is found among other notes and truncated notes are rejected") {
  // namesz=4 descsz=4 type=1 "Xen\0" desc, then namesz=4 descsz=3 type=3 (NT_GNU_BUILD_ID)
  // "GNU\0" desc padded to 4.
  const std::vector<uint8_t> notes = {4,   0, 0, 0, 4,   0,   0,   0, 1,    0,    0,    0, 'X', 'e',
                                      'n', 0, 9, 9, 9,   9,   4,   0, 0,    0,    3,    0, 0,   0,
                                      3,   0, 0, 0, 'G', 'N', 'U', 0, 0xab, 0xcd, 0xef, 0};
  auto id = find_gnu_build_id_note(notes);
  REQUIRE(id.has_value());
  CHECK(id->code_id() == "abcdef");
  const std::vector<uint8_t> truncated(notes.begin(), notes.end() - 6);
  CHECK_FALSE(find_gnu_build_id_note(truncated).has_value());
}

TEST_CASE("symbol table reading finds functions by name with their sizes") {
  const std::string path = target_path("sprof_symbols_target");
  auto symbols = read_symbols(path);
  REQUIRE(symbols.has_value());
  auto leaf = find_symbol(*symbols, "_ZN12sprof_target19named_leaf_functionEi");
  REQUIRE(leaf.has_value());
  CHECK(leaf->size > 0);
  CHECK(leaf->binding == ElfSymbol::Binding::kGlobal);
  auto main_symbol = find_symbol(*symbols, "main");
  REQUIRE(main_symbol.has_value());
  CHECK(main_symbol->address != leaf->address);
  CHECK_FALSE(find_symbol(*symbols, "chain_sink").has_value());  // data, not code
  auto missing = read_symbols("/nonexistent/file");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Errc::kNotFound);
}

}  // namespace
}  // namespace sprof::elf
