// The checks sprof makes on a file's CFI before libdw reads it (cfi_module.hpp): hostile
// register numbers in .eh_frame and an .eh_frame_hdr search table that disagrees with .eh_frame.
// Files are built by the suite (tests/targets/hostile.cmake, unwind.cmake) or copied from them
// and damaged at test time; functions are found by name.
#include <doctest/doctest.h>
#include <elf.h>
#include <sys/resource.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "elf_image_builder.hpp"
#include "sprof/elf/cfi_module.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "symbols_test_support.hpp"

namespace sprof::elf {
namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The section called `name` of an ELF64 image, found with <elf.h> alone so that the test does
// not depend on the code under test to locate what it damages.
std::optional<Elf64_Shdr> section_named(const std::vector<char>& bytes, const std::string& name) {
  Elf64_Ehdr eh{};
  if (bytes.size() < sizeof eh) return std::nullopt;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (bytes.size() < eh.e_shoff + sections.size() * sizeof(Elf64_Shdr)) return std::nullopt;
  std::memcpy(sections.data(), bytes.data() + eh.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  const Elf64_Shdr& names = sections.at(eh.e_shstrndx);
  for (const auto& sh : sections) {
    if (std::strcmp(bytes.data() + names.sh_offset + sh.sh_name, name.c_str()) == 0) return sh;
  }
  return std::nullopt;
}

uint64_t function_address(const std::string& path, const std::string& name) {
  return test::symbol_in(path, name).address;
}

// Functions of `path` with a size, for comparing which ones CFI covers.
std::vector<ElfSymbol> sized_functions(const std::string& path) {
  auto symbols = read_symbols(path);
  REQUIRE(symbols.has_value());
  std::vector<ElfSymbol> out;
  for (const auto& s : *symbols) {
    if (s.size > 1) out.push_back(s);
  }
  return out;
}

// The process's peak resident size so far (ru_maxrss, KiB).
long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Rules equal in what an unwinder uses.
void check_same_rule(const FrameRule& a, const FrameRule& b) {
  CHECK(a.cfa_kind == b.cfa_kind);
  CHECK(a.cfa_reg == b.cfa_reg);
  CHECK(a.cfa_offset == b.cfa_offset);
  for (size_t i = 0; i < a.regs.size(); ++i) {
    CAPTURE(i);
    CHECK(a.regs[i].kind == b.regs[i].kind);
    CHECK(a.regs[i].offset == b.regs[i].offset);
  }
}

TEST_CASE(
    "a rule for a register x86-64 lacks is dropped before libdw sees it, and the FDE still "
    "unwinds") {
  const std::string path = test::target_path("hostile_cfi");
  auto module = CfiModule::open(path);
  REQUIRE(module.has_value());
  // One byte after the push: the row with the hostile register rule. `plain_cfi_function` is
  // the same code without it, so the two rules must agree.
  const uint64_t hostile = function_address(path, "hostile_cfi_function") + 1;
  const uint64_t plain = function_address(path, "plain_cfi_function") + 1;
  const long peak_before = peak_rss_kib();
  const auto hostile_rule = (*module)->find_rule(sprof::Svma{hostile});
  // libdw would have sized (and cleared) a row of 2^27 registers: 1 GiB for this one lookup.
  CHECK(peak_rss_kib() - peak_before < 64 * 1024);
  const auto plain_rule = (*module)->find_rule(sprof::Svma{plain});
  REQUIRE(hostile_rule.has_value());
  REQUIRE(plain_rule.has_value());
  CHECK(plain_rule->cfa_kind == FrameRule::CfaKind::kRegOffset);
  CHECK(plain_rule->cfa_offset == 16);
  CHECK(plain_rule->rule(DwarfReg::kRbx).kind == RegisterRule::Kind::kOffset);
  check_same_rule(*hostile_rule, *plain_rule);
  CHECK((*module)->find_rule(sprof::Svma{function_address(path, "main")}).has_value());
  const auto& integrity = (*module)->integrity();
  CHECK(integrity.dropped_rules == 1);
  CHECK(integrity.rejected_fdes == 0);
  CHECK_FALSE(integrity.eh_frame_hdr_rejected);
  CHECK(integrity.first_problem.find("register 134217728") != std::string::npos);
}

TEST_CASE("a .debug_frame whose CIE computes the CFA from a register x86-64 lacks is not used") {
  const std::string original = test::target_path("libunwind_debug_frame_lib.so");
  std::vector<char> bytes = read_bytes(original);
  const auto section = section_named(bytes, ".debug_frame");
  REQUIRE(section.has_value());
  // The CIE's DW_CFA_def_cfa r7 8 (0c 07 08) becomes DW_CFA_def_cfa_register r146 (0d 92 01).
  const std::string def_cfa("\x0c\x07\x08", 3);
  const std::string frames(bytes.data() + section->sh_offset, section->sh_size);
  const size_t at = frames.find(def_cfa);
  REQUIRE(at != std::string::npos);
  std::memcpy(bytes.data() + section->sh_offset + at, "\x0d\x92\x01", 3);
  test::TempDir dir;
  const std::string copy = dir.path() + "/libunwind_debug_frame_lib.so";
  write_bytes(copy, bytes);

  auto good = CfiModule::open(original);
  auto bad = CfiModule::open(copy);
  REQUIRE(good.has_value());
  REQUIRE(bad.has_value());
  const uint64_t pc = function_address(original, "debug_frame_function") + 1;
  CHECK((*good)->find_rule(sprof::Svma{pc}).has_value());
  CHECK_FALSE((*good)->integrity().debug_frame_rejected);
  CHECK_FALSE((*bad)->find_rule(sprof::Svma{pc}).has_value());
  CHECK((*bad)->integrity().debug_frame_rejected);
  CHECK((*bad)->integrity().first_problem.find("register 146") != std::string::npos);
}

// Copies the unwinder's test program and damages its .eh_frame_hdr table with `damage`, which
// gets the header's bytes (after REQUIREing the common layout: datarel sdata4 table).
template <class Damage>
std::string damaged_copy(const test::TempDir& dir, Damage damage) {
  const std::string original = test::target_path("unwind_snapshots");
  std::vector<char> bytes = read_bytes(original);
  const auto hdr = section_named(bytes, ".eh_frame_hdr");
  REQUIRE(hdr.has_value());
  char* h = bytes.data() + hdr->sh_offset;
  REQUIRE(h[0] == 1);                           // version
  REQUIRE(static_cast<uint8_t>(h[2]) == 0x03);  // fde_count: udata4
  REQUIRE(static_cast<uint8_t>(h[3]) == 0x3b);  // table: datarel sdata4
  uint32_t count = 0;
  std::memcpy(&count, h + 8, 4);
  REQUIRE(count > 8);
  damage(h, count);
  const std::string copy = dir.path() + "/unwind_snapshots";
  write_bytes(copy, bytes);
  return copy;
}

void check_same_coverage(const std::string& original, const std::string& damaged) {
  auto good = CfiModule::open(original);
  auto bad = CfiModule::open(damaged);
  REQUIRE(good.has_value());
  REQUIRE(bad.has_value());
  size_t covered = 0;
  size_t same = 0;
  const auto functions = sized_functions(original);
  for (const auto& f : functions) {
    const uint64_t pc = f.address + f.size / 2;
    const auto expected = (*good)->find_rule(sprof::Svma{pc});
    const auto actual = (*bad)->find_rule(sprof::Svma{pc});
    if (!expected) continue;
    ++covered;
    if (actual && actual->cfa_offset == expected->cfa_offset &&
        actual->cfa_reg == expected->cfa_reg && actual->pc_end == expected->pc_end) {
      ++same;
    }
  }
  REQUIRE(covered > 8);
  CHECK(same == covered);
  CHECK_FALSE((*good)->integrity().eh_frame_hdr_rejected);
  CHECK((*bad)->integrity().eh_frame_hdr_rejected);
  CHECK((*bad)->integrity().rejected_fdes == 0);
}

TEST_CASE("a flipped byte in the .eh_frame_hdr table does not cost unwinding") {
  test::TempDir dir;
  const std::string original = test::target_path("unwind_snapshots");
  SUBCASE("an entry's start address out of order") {
    const std::string copy = damaged_copy(dir, [](char* h, uint32_t count) {
      h[12 + (count / 2) * 8 + 3] ^= 0x40;  // high byte of the middle entry's initial_loc
    });
    check_same_coverage(original, copy);
  }
  SUBCASE("an entry pointing at the wrong FDE") {
    const std::string copy = damaged_copy(dir, [](char* h, uint32_t count) {
      h[12 + (count / 2) * 8 + 4] ^= 0x08;  // low byte of the middle entry's fde pointer
    });
    check_same_coverage(original, copy);
  }
  SUBCASE("a count smaller than the table") {
    const std::string copy = damaged_copy(dir, [](char* h, uint32_t) {
      const uint32_t one = 1;
      std::memcpy(h + 8, &one, 4);
    });
    check_same_coverage(original, copy);
  }
  SUBCASE("a version libdw refuses, which would lose all of .eh_frame") {
    const std::string copy = damaged_copy(dir, [](char* h, uint32_t) { h[0] = 2; });
    check_same_coverage(original, copy);
  }
}

TEST_CASE("a file whose .eh_frame and .eh_frame_hdr are empty opens, with no rules") {
  // Found by the cfi_module fuzz target: the copy of an empty .eh_frame was a memcpy from a null
  // pointer (undefined even for zero bytes; the sanitizer build aborts on it).
  const auto image = test::build_elf_image({
      {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, std::vector<uint8_t>(16, 0x90)},
      {".eh_frame_hdr", SHT_PROGBITS, SHF_ALLOC, 0x2000, {}},
      {".eh_frame", SHT_PROGBITS, SHF_ALLOC, 0x3000, {}},
  });
  auto module = CfiModule::open_image(image);
  REQUIRE(module.has_value());
  CHECK_FALSE((*module)->find_rule(sprof::Svma{0x1000}).has_value());
  CHECK((*module)->integrity().eh_frame_hdr_rejected);
}

TEST_CASE(
    "checking FDEs as lookups reach them gives the rules checking all of .eh_frame first gives") {
  // A module answers its first lookups from FDEs it checks one at a time; a lookup of address 0,
  // which no search table reaches, makes it check the whole section first. Both must give the
  // same rule at every point of every function.
  // gold and mold put .eh_frame_hdr after .eh_frame: their tables are searched through a copy in
  // GNU ld's order.
  for (const std::string& path :
       {std::string("/lib/x86_64-linux-gnu/libc.so.6"),
        std::string("/lib/x86_64-linux-gnu/libstdc++.so.6"), test::target_path("unwind_snapshots"),
        test::target_path("it_unwind_gold"), test::target_path("it_unwind_mold")}) {
    CAPTURE(path);
    auto as_reached = CfiModule::open(path);
    auto all_first = CfiModule::open(path);
    REQUIRE(as_reached.has_value());
    REQUIRE(all_first.has_value());
    CHECK((*as_reached)->eh_frame_searched());
    CHECK_FALSE((*all_first)->find_rule(sprof::Svma{0}).has_value());
    size_t compared = 0;
    for (const auto& f : sized_functions(path)) {
      for (const uint64_t pc :
           {f.address, f.address + 1, f.address + f.size / 2, f.address + f.size - 1}) {
        const auto a = (*as_reached)->find_rule(sprof::Svma{pc});
        const auto b = (*all_first)->find_rule(sprof::Svma{pc});
        CAPTURE(pc);
        REQUIRE(a.has_value() == b.has_value());
        if (!a) continue;
        ++compared;
        CHECK(a->pc_start == b->pc_start);
        CHECK(a->pc_end == b->pc_end);
        check_same_rule(*a, *b);
      }
    }
    CHECK(compared >= 50);  // it_unwind has a few dozen functions
    CHECK((*as_reached)->integrity().rejected_fdes == 0);
    CHECK_FALSE((*as_reached)->integrity().eh_frame_hdr_rejected);
  }
}

}  // namespace
}  // namespace sprof::elf
