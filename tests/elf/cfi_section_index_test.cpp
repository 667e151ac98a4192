// sprof's own index of .eh_frame / .debug_frame (elf/src/cfi_section_index.hpp)
// and the .eh_frame_hdr check, from hand-assembled bytes.
#include "cfi_section_index.hpp"

#include <doctest/doctest.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "eh_frame_hdr_check.hpp"
#include "elf_image_builder.hpp"
#include "sprof/elf/cfi_module.hpp"

namespace sprof::elf::detail {
namespace {

constexpr uint64_t kSectionAddress = 0x2000;

// Assembles CIEs and FDEs: .eh_frame with the 'zR' augmentation and pcrel|sdata4 pointers (what
// GCC emits), or .debug_frame with absolute 8-byte addresses.
class FrameBuilder {
 public:
  explicit FrameBuilder(CfiFormat format) : format_(format) {}

  uint32_t cie(std::vector<uint8_t> initial_instructions, uint8_t return_address_register = 16) {
    const auto offset = static_cast<uint32_t>(bytes_.size());
    std::vector<uint8_t> body;
    append32(body, format_ == CfiFormat::kEhFrame ? 0 : 0xffffffff);
    body.push_back(format_ == CfiFormat::kEhFrame ? 1 : 3);  // version
    if (format_ == CfiFormat::kEhFrame) {
      body.insert(body.end(), {'z', 'R', 0});
    } else {
      body.push_back(0);
    }
    body.push_back(1);     // code alignment 1
    body.push_back(0x78);  // data alignment -8
    body.push_back(return_address_register);
    if (format_ == CfiFormat::kEhFrame) body.insert(body.end(), {1, 0x1b});  // pcrel|sdata4
    body.insert(body.end(), initial_instructions.begin(), initial_instructions.end());
    entry(body);
    return offset;
  }

  uint32_t fde(uint32_t cie_offset, uint64_t pc_begin, uint32_t pc_range,
               std::vector<uint8_t> instructions) {
    const auto offset = static_cast<uint32_t>(bytes_.size());
    std::vector<uint8_t> body;
    if (format_ == CfiFormat::kEhFrame) {
      append32(body, offset + 4 - cie_offset);  // back from this field to the CIE
      const uint64_t field_address = kSectionAddress + offset + 8;
      append32(body, static_cast<uint32_t>(pc_begin - field_address));
      append32(body, pc_range);
      body.push_back(0);  // augmentation data length
    } else {
      append32(body, cie_offset);
      append64(body, pc_begin);
      append64(body, pc_range);
    }
    body.insert(body.end(), instructions.begin(), instructions.end());
    entry(body);
    return offset;
  }

  CfiSectionIndex index() const {
    return index_cfi_section(
        {bytes_, kSectionAddress, format_, 8, dwarf_register_count(EM_X86_64)});
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  static void append32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  static void append64(std::vector<uint8_t>& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void entry(std::vector<uint8_t> body) {
    while ((body.size() + 4) % 8 != 0) body.push_back(0);  // DW_CFA_nop padding
    append32(bytes_, static_cast<uint32_t>(body.size()));
    bytes_.insert(bytes_.end(), body.begin(), body.end());
  }

  CfiFormat format_;
  std::vector<uint8_t> bytes_;
};

// def_cfa rsp+8; offset rip at cfa-8: the psABI's state at a call target.
const std::vector<uint8_t> kInitial = {0x0c, 7, 8, 0x90, 1};

TEST_CASE("well-formed FDEs are indexed with their ranges in both section formats") {
  for (CfiFormat format : {CfiFormat::kEhFrame, CfiFormat::kDebugFrame}) {
    FrameBuilder b(format);
    const uint32_t cie = b.cie(kInitial);
    // push rbx; def_cfa_offset 16; offset rbx at cfa-16; remember/restore; args_size.
    b.fde(cie, 0x1000, 0x20, {0x41, 0x0e, 16, 0x83, 2, 0x0a, 0x41, 0x0b, 0x2e, 0});
    b.fde(cie, 0x1020, 0x10, {0x41, 0x0e, 16, 0x05, 0x10, 1});
    const auto index = b.index();
    CHECK(index.rejected_fdes.size() == 0);
    CHECK_FALSE(index.truncated);
    REQUIRE(index.fdes.size() == 2);
    CHECK(index.fdes[0].pc_begin == 0x1000);
    CHECK(index.fdes[0].pc_range == 0x20);
    CHECK(index.fdes[1].pc_begin == 0x1020);
    CHECK(index.fdes[0].valid);
    CHECK(fde_at_offset(index, index.fdes[1].offset) == &index.fdes[1]);
  }
}

TEST_CASE("a rule for a register the machine lacks is dropped and its FDE stays valid") {
  for (const std::vector<uint8_t>& rule : std::vector<std::vector<uint8_t>>{
           {0x05, 0x80, 0x80, 0x80, 0x40, 3},  // offset_extended r2^27
           {0x16, 0x92, 0x01, 0},              // val_expression r146
           {0x10, 0x96, 0x01, 1, 0x9c},        // expression r150 (one-byte expression)
           {0x2f, 0x93, 0x01, 1},              // GNU_negative_offset_extended r147
           {0x09, 0xc8, 0x01, 3},              // register: r200 is held in r3
       }) {
    FrameBuilder b(CfiFormat::kEhFrame);
    const uint32_t cie = b.cie(kInitial);
    b.fde(cie, 0x1000, 0x10, {0x41});
    std::vector<uint8_t> code = {0x41, 0x0e, 16};  // advance 1; def_cfa_offset 16
    const size_t at = code.size();
    code.insert(code.end(), rule.begin(), rule.end());
    code.insert(code.end(), {0x83, 2});  // offset rbx at cfa-16: kept
    const uint32_t fde = b.fde(cie, 0x1010, 0x10, code);
    const auto index = b.index();
    CHECK(index.rejected_fdes.size() == 0);
    REQUIRE(index.fdes.size() == 2);
    CHECK(index.fdes[1].valid);
    REQUIRE(index.dropped_instructions.size() == 1);
    const SectionSpan dropped = index.dropped_instructions.front();
    // The FDE's instructions start after length, CIE pointer, pc_begin, pc_range, aug length.
    CHECK(dropped.offset == fde + 4 + 4 + 4 + 4 + 1 + at);
    CHECK(dropped.size == rule.size());
    CHECK(index.first_dropped.find("register") != std::string::npos);
  }
  // The highest x86-64 register (r31 with APX, 145) is fine.
  FrameBuilder ok(CfiFormat::kEhFrame);
  ok.fde(ok.cie(kInitial), 0x1000, 0x10, {0x05, 0x91, 0x01, 2});
  CHECK(ok.index().dropped_instructions.empty());
}

TEST_CASE(
    "an FDE that computes its CFA or a register from a register the machine lacks is invalid") {
  for (const std::vector<uint8_t>& code : std::vector<std::vector<uint8_t>>{
           {0x0c, 0xc8, 0x01, 8},        // def_cfa r200
           {0x0d, 0x92, 0x01},           // def_cfa_register r146
           {0x12, 0x80, 0x80, 0x04, 1},  // def_cfa_sf r65536
           {0x09, 3, 0xff, 0x01},        // register: r3 is held in r255
       }) {
    FrameBuilder b(CfiFormat::kEhFrame);
    const uint32_t cie = b.cie(kInitial);
    b.fde(cie, 0x1000, 0x10, {0x41});
    b.fde(cie, 0x1010, 0x10, code);
    const auto index = b.index();
    CHECK(index.rejected_fdes.size() == 1);
    REQUIRE(index.fdes.size() == 2);
    CHECK(index.fdes[0].valid);
    CHECK_FALSE(index.fdes[1].valid);
    CHECK(index.first_problem.find("register") != std::string::npos);
    CHECK(index.dropped_instructions.empty());
  }
}

TEST_CASE(
    "a CIE's hostile return address column invalidates its FDEs; its dropped rules count once") {
  FrameBuilder b(CfiFormat::kEhFrame);
  const uint32_t bad_ra = b.cie(kInitial, 200);
  const uint32_t bad_cfa = b.cie({0x0c, 0xc8, 0x01, 8});
  std::vector<uint8_t> extra_rule = kInitial;
  extra_rule.insert(extra_rule.end(), {0x05, 0x80, 0x80, 0x80, 0x40, 3});
  const uint32_t dropped_rule = b.cie(extra_rule);
  b.fde(bad_ra, 0x1000, 0x10, {});
  b.fde(bad_cfa, 0x1010, 0x10, {});
  b.fde(dropped_rule, 0x1020, 0x10, {});
  b.fde(dropped_rule, 0x1030, 0x10, {});
  const auto index = b.index();
  CHECK(index.rejected_fdes.size() == 2);
  REQUIRE(index.fdes.size() == 4);
  CHECK(index.fdes[2].valid);
  CHECK(index.fdes[3].valid);
  CHECK(index.dropped_instructions.size() == 1);
  CHECK(index.first_problem.find("return address register 200") != std::string::npos);
}

TEST_CASE("libdw never runs an FDE whose CIE is invalid, whatever that CIE says about encodings") {
  // Found by the cfi_module fuzz target: the CIE was rejected (return address column 146)
  // before its 'R' augmentation was read, so the FDE's range was taken as 8-byte absolute
  // pointers where libdw reads pcrel|sdata4; the copy cleared the wrong bytes, libdw still found
  // the FDE and ran its instructions (a hostile register number there cost 1.5 GB per lookup).
  FrameBuilder b(CfiFormat::kEhFrame);
  const uint32_t bad_ra = b.cie(kInitial, 146);
  b.fde(bad_ra, 0x1000, 0x10, {});
  b.fde(b.cie(kInitial), 0x1010, 0x10, {});
  REQUIRE(b.index().rejected_fdes.size() == 1);
  const auto image = test::build_elf_image({
      {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, std::vector<uint8_t>(0x20, 0x90)},
      {".eh_frame", SHT_PROGBITS, SHF_ALLOC, kSectionAddress, b.bytes()},
  });
  auto module = CfiModule::open_image(image);
  REQUIRE(module.has_value());
  CHECK((*module)->integrity().rejected_fdes == 1);
  CHECK_FALSE((*module)->find_rule(sprof::Svma{0x1000}).has_value());
  CHECK_FALSE((*module)->find_rule(sprof::Svma{0x100f}).has_value());
  // The FDE after it is still reached by libdw's scan of the copy.
  const auto rule = (*module)->find_rule(sprof::Svma{0x1010});
  REQUIRE(rule.has_value());
  CHECK(rule->cfa_offset == 8);
}

TEST_CASE("deep remember_state nesting, unknown opcodes and cut operands are invalid") {
  std::vector<uint8_t> nested(65, 0x0a);
  std::vector<uint8_t> balanced;
  for (int i = 0; i < 200; ++i) balanced.insert(balanced.end(), {0x0a, 0x0b});
  for (const auto& [code, valid] : std::vector<std::pair<std::vector<uint8_t>, bool>>{
           {nested, false},
           {balanced, true},
           {{0x3f}, false},                          // unknown opcode
           {{0x0f, 0x7f, 1}, false},                 // expression block longer than the entry
           {std::vector<uint8_t>(12, 0x80), false},  // a LEB128 operand longer than 64 bits
       }) {
    FrameBuilder b(CfiFormat::kEhFrame);
    b.fde(b.cie(kInitial), 0x1000, 0x10, code);
    const auto index = b.index();
    REQUIRE(index.fdes.size() == 1);
    CHECK(index.fdes[0].valid == valid);
  }
}

TEST_CASE("entries whose length leaves the section end the walk") {
  FrameBuilder b(CfiFormat::kEhFrame);
  const uint32_t cie = b.cie(kInitial);
  b.fde(cie, 0x1000, 0x10, {});
  const size_t cut = b.bytes().size();
  b.fde(cie, 0x1010, 0x10, {});
  b.bytes()[cut] = 0xf0;  // the second FDE's length now reaches past the end
  const auto index = b.index();
  CHECK(index.truncated);
  CHECK(index.fdes.size() == 1);
  // And an FDE whose CIE pointer points at another FDE is invalid.
  FrameBuilder c(CfiFormat::kEhFrame);
  const uint32_t c_cie = c.cie(kInitial);
  const uint32_t first = c.fde(c_cie, 0x1000, 0x10, {});
  c.fde(first, 0x1010, 0x10, {});
  CHECK(c.index().rejected_fdes.size() == 1);
}

// .eh_frame_hdr bytes for `eh_frame` at kSectionAddress, the header at kHdrAddress.
constexpr uint64_t kHdrAddress = 0x1800;
std::vector<uint8_t> hdr_for(const CfiSectionIndex& index) {
  std::vector<uint8_t> h = {1, 0x1b, 0x03, 0x3b};
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) h.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put32(static_cast<uint32_t>(kSectionAddress - (kHdrAddress + 4)));  // pcrel eh_frame_ptr
  put32(static_cast<uint32_t>(index.fdes.size()));
  for (const auto& f : index.fdes) {
    put32(static_cast<uint32_t>(f.pc_begin - kHdrAddress));
    put32(static_cast<uint32_t>(kSectionAddress + f.offset - kHdrAddress));
  }
  return h;
}

// One CIE and sixteen FDEs of 0x10 bytes each from 0x1000.
FrameBuilder sixteen_fdes() {
  FrameBuilder b(CfiFormat::kEhFrame);
  const uint32_t cie = b.cie(kInitial);
  for (uint64_t pc = 0x1000; pc < 0x1100; pc += 0x10) b.fde(cie, pc, 0x10, {});
  return b;
}

// `hdr` (from hdr_for) with table entries `i` and `j` swapped.
std::vector<uint8_t> with_entries_swapped(std::vector<uint8_t> hdr, size_t i, size_t j) {
  std::swap_ranges(hdr.begin() + 12 + 8 * i, hdr.begin() + 12 + 8 * (i + 1),
                   hdr.begin() + 12 + 8 * j);
  return hdr;
}

TEST_CASE("an .eh_frame_hdr table is checked entry by entry against .eh_frame") {
  FrameBuilder b = sixteen_fdes();
  const auto index = b.index();
  const std::vector<uint8_t> good = hdr_for(index);
  auto problem = [&](const std::vector<uint8_t>& h) {
    return eh_frame_hdr_problem({h, kHdrAddress, kSectionAddress, 8}, index);
  };
  CHECK(problem(good).empty());

  const auto unsorted = with_entries_swapped(good, 4, 5);  // each still names its own FDE
  CHECK(problem(unsorted).find("out of order") != std::string::npos);
  auto flipped = good;
  flipped[12 + 5 * 8 + 3] ^= 0x40;
  CHECK(problem(flipped).find("disagrees with its FDE") != std::string::npos);
  auto wrong_fde = good;
  wrong_fde[12 + 5 * 8 + 4] ^= 0x08;
  CHECK_FALSE(problem(wrong_fde).empty());
  auto short_count = good;
  short_count[8] = 3;
  CHECK(problem(short_count).find("leaves out") != std::string::npos);
  auto long_count = good;
  long_count[9] = 1;
  CHECK(problem(long_count).find("more than it holds") != std::string::npos);
  auto version = good;
  version[0] = 2;
  CHECK(problem(version).find("version") != std::string::npos);
  // A table libdw ignores (no count) needs nothing.
  auto no_table = good;
  no_table[2] = 0xff;
  CHECK(problem(no_table).empty());
}

TEST_CASE(
    "the search table is searched the way libdw searches it, when it is in order and points into "
    ".eh_frame") {
  FrameBuilder b = sixteen_fdes();
  const auto index = b.index();
  const std::vector<uint8_t> good = hdr_for(index);
  const uint64_t eh_frame_size = b.bytes().size();
  auto table = [&](const std::vector<uint8_t>& h) {
    return EhFrameSearchTable::searchable({h, kHdrAddress, kSectionAddress, 8}, eh_frame_size);
  };
  const auto searched = table(good);
  REQUIRE(searched.has_value());
  CHECK(searched->size() == index.fdes.size());
  CHECK_FALSE(searched->find(0x0fff).has_value());
  for (const uint64_t pc : {0x1000, 0x1015, 0x10ff}) {
    CAPTURE(pc);
    const auto hit = searched->find(pc);
    REQUIRE(hit.has_value());
    const FdeEntry& fde = index.fdes[(pc - 0x1000) / 0x10];
    CHECK(hit->fde_offset == fde.offset);
    CHECK(hit->start == fde.pc_begin);
  }
  // Past the last entry libdw still takes the last one (it assumes it runs to the module's end).
  REQUIRE(searched->find(0x9000).has_value());
  CHECK(searched->find(0x9000)->fde_offset == index.fdes.back().offset);

  const auto unsorted = with_entries_swapped(good, 4, 5);
  CHECK_FALSE(table(unsorted).has_value());
  auto outside = good;  // an FDE pointer past the end of .eh_frame
  outside[12 + 5 * 8 + 6] ^= 0x10;
  CHECK_FALSE(table(outside).has_value());
  auto version = good;
  version[0] = 2;
  CHECK_FALSE(table(version).has_value());
  auto no_table = good;  // libdw scans .eh_frame instead
  no_table[2] = 0xff;
  CHECK_FALSE(table(no_table).has_value());
  // A count smaller than the table is a table in order: the FDEs it leaves out are found when a
  // lookup lands on an FDE that does not cover the address (cfi_module.cpp).
  auto short_count = good;
  short_count[8] = 3;
  REQUIRE(table(short_count).has_value());
  CHECK(table(short_count)->find(0x10ff)->fde_offset == index.fdes[2].offset);
}

TEST_CASE("one FDE checked alone gets the verdict the whole-section index gives it") {
  FrameBuilder b(CfiFormat::kEhFrame);
  const uint32_t cie = b.cie(kInitial);
  const uint32_t clean = b.fde(cie, 0x1000, 0x10, {0x41, 0x0e, 16});
  const uint32_t unknown_opcode = b.fde(cie, 0x1010, 0x10, {0x3f});
  const uint32_t dropped_rule = b.fde(cie, 0x1020, 0x10, {0x05, 200, 1});  // offset_extended r200
  const uint32_t bad_cie_fde = b.fde(b.cie(kInitial, 146), 0x1030, 0x10, {});
  const uint32_t cut = b.fde(cie, 0x1040, 0x10, {0x0f, 0x7f, 1});
  const auto index = b.index();
  REQUIRE(index.fdes.size() == 5);
  FdeChecker checker(
      {b.bytes(), kSectionAddress, CfiFormat::kEhFrame, 8, dwarf_register_count(EM_X86_64)});
  const auto fde = checker.clean_fde_at(clean);
  REQUIRE(fde.has_value());
  CHECK(fde->pc_begin == 0x1000);
  CHECK(fde->pc_range == 0x10);
  CHECK(index.fdes[0].valid);
  // Invalid in the index, and not clean alone.
  for (const uint32_t offset : {unknown_opcode, bad_cie_fde, cut}) {
    CAPTURE(offset);
    CHECK_FALSE(fde_at_offset(index, offset)->valid);
    CHECK_FALSE(checker.clean_fde_at(offset).has_value());
  }
  // Valid, but libdw must read the repaired copy: not clean either.
  CHECK(fde_at_offset(index, dropped_rule)->valid);
  CHECK_FALSE(checker.clean_fde_at(dropped_rule).has_value());
  // Not an FDE at all: the CIE, the middle of an entry, past the end.
  CHECK_FALSE(checker.clean_fde_at(cie).has_value());
  CHECK_FALSE(checker.clean_fde_at(clean + 4).has_value());
  CHECK_FALSE(checker.clean_fde_at(b.bytes().size() + 8).has_value());
}

TEST_CASE(
    "a module checks .eh_frame FDE by FDE as lookups reach them, and all of it at the first "
    "doubt") {
  FrameBuilder b(CfiFormat::kEhFrame);
  const uint32_t cie = b.cie(kInitial);
  b.fde(cie, 0x1000, 0x10, {0x41, 0x0e, 16});  // push: cfa rsp+16 from 0x1001
  b.fde(cie, 0x1010, 0x10, {0x05, 200, 1});    // a rule for a register x86-64 lacks
  b.fde(cie, 0x1020, 0x10, {});
  const auto index = b.index();
  auto module_with = [&](const std::vector<uint8_t>& hdr) {
    // The header precedes .eh_frame in the section table, as libdw requires to use it.
    const auto image = test::build_elf_image({
        {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000,
         std::vector<uint8_t>(0x30, 0x90)},
        {".eh_frame_hdr", SHT_PROGBITS, SHF_ALLOC, kHdrAddress, hdr},
        {".eh_frame", SHT_PROGBITS, SHF_ALLOC, kSectionAddress, b.bytes()},
    });
    auto module = CfiModule::open_image(image);
    REQUIRE(module.has_value());
    return std::move(*module);
  };
  SUBCASE("a clean FDE is used without checking the rest; the first FDE in doubt checks it all") {
    auto module = module_with(hdr_for(index));
    const auto rule = module->find_rule(sprof::Svma{0x1001});
    REQUIRE(rule.has_value());
    CHECK(rule->cfa_offset == 16);
    CHECK(module->integrity().dropped_rules == 0);  // not read yet
    const auto dropped = module->find_rule(sprof::Svma{0x1011});
    REQUIRE(dropped.has_value());
    CHECK(dropped->cfa_offset == 8);
    CHECK(module->integrity().dropped_rules == 1);
    REQUIRE(module->find_rule(sprof::Svma{0x1001}).has_value());
    CHECK(module->find_rule(sprof::Svma{0x1001})->cfa_offset == 16);
  }
  SUBCASE("an FDE the table leaves out is still found") {
    auto short_count = hdr_for(index);
    short_count[8] = 1;
    auto module = module_with(short_count);
    REQUIRE(module->find_rule(sprof::Svma{0x1001}).has_value());
    CHECK_FALSE(module->integrity().eh_frame_hdr_rejected);
    const auto rule = module->find_rule(sprof::Svma{0x1025});
    REQUIRE(rule.has_value());
    CHECK(rule->cfa_offset == 8);
    CHECK(module->integrity().eh_frame_hdr_rejected);
  }
}

}  // namespace
}  // namespace sprof::elf::detail
