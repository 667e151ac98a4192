// The interposer's reader of `.eh_frame` (heap/src/interposer/eh_frame_rules.hpp), from bytes:
// the rows a prologue's instructions build, FDE lookup through the search table, what it leaves to
// sprof's unwinder, and truncated or wrong bytes (never a read outside the image).
#include "interposer/eh_frame_rules.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "eh_frame_builder.hpp"

using namespace sprof::heap::interposer;
using sprof::heap::test::EhFrameBuilder;
using sprof::heap::test::x86_64_cie_instructions;

namespace {

constexpr uint64_t kAt = 0x400000;

// push %rbp (1 byte); mov %rsp,%rbp (3 bytes); ...; the usual frame-pointer prologue.
std::vector<uint8_t> prologue_instructions() {
  return {
      0x41,              // DW_CFA_advance_loc 1
      0x0e, 0x10,        // DW_CFA_def_cfa_offset 16
      0x86, 0x02,        // DW_CFA_offset r6 (rbp) at CFA - 16
      0x43,              // DW_CFA_advance_loc 3
      0x0d, 0x06,        // DW_CFA_def_cfa_register r6
      0x4a,              // DW_CFA_advance_loc 10: the epilogue
      0x0c, 0x07, 0x08,  // DW_CFA_def_cfa r7 + 8
      0xc6,              // DW_CFA_restore r6
  };
}

struct Image {
  explicit Image(const EhFrameBuilder& b) : bytes(b.build()) {}
  CfiImage cfi() const { return {bytes.data(), bytes.size(), kAt}; }
  RuleStatus rule_at(uint64_t pc, FrameRule& rule) const {
    return find_frame_rule(cfi(), kAt, pc, rule);
  }
  std::vector<uint8_t> bytes;
};

constexpr uint64_t kFunction = 0x401000;

}  // namespace

TEST_CASE("eh_frame rules: a frame-pointer prologue, row by row") {
  EhFrameBuilder b(kAt, x86_64_cie_instructions());
  b.add({kFunction, 0x40, prologue_instructions()});
  const Image image(b);
  FrameRule r{};

  REQUIRE(image.rule_at(kFunction, r) == RuleStatus::kFound);
  CHECK(r.cfa_register == kDwarfRsp);
  CHECK(r.cfa_offset == 8);
  CHECK(r.return_address == SavedAt::kCfaOffset);
  CHECK(r.return_address_offset == -8);
  CHECK(r.bp == SavedAt::kSameValue);

  REQUIRE(image.rule_at(kFunction + 1, r) == RuleStatus::kFound);  // after push %rbp
  CHECK(r.cfa_register == kDwarfRsp);
  CHECK(r.cfa_offset == 16);
  CHECK(r.bp == SavedAt::kCfaOffset);
  CHECK(r.bp_offset == -16);

  for (uint64_t pc : {kFunction + 4, kFunction + 13}) {  // the body: CFA from %rbp
    CAPTURE(pc);
    REQUIRE(image.rule_at(pc, r) == RuleStatus::kFound);
    CHECK(r.cfa_register == kDwarfRbp);
    CHECK(r.cfa_offset == 16);
    CHECK(r.bp == SavedAt::kCfaOffset);
  }
  REQUIRE(image.rule_at(kFunction + 14, r) == RuleStatus::kFound);  // after the epilogue
  CHECK(r.cfa_register == kDwarfRsp);
  CHECK(r.cfa_offset == 8);
  CHECK(r.bp == SavedAt::kSameValue);  // restored to the CIE's rule
}

TEST_CASE("eh_frame rules: the search table finds each function's FDE, and only inside it") {
  EhFrameBuilder b(kAt, x86_64_cie_instructions());
  for (uint64_t i = 0; i < 8; ++i) {
    // Each function's CFA offset says which FDE answered: 8 + 16 * i after its first byte (one byte
    // of ULEB128).
    std::vector<uint8_t> ins{0x41, 0x0e, static_cast<uint8_t>(8 + 16 * i)};
    b.add({kFunction + 0x100 * i, 0x80, ins});
  }
  const Image image(b);
  FrameRule r{};
  for (uint64_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    REQUIRE(image.rule_at(kFunction + 0x100 * i + 0x10, r) == RuleStatus::kFound);
    CHECK(r.cfa_offset == static_cast<int32_t>(8 + 16 * i));
    // The gap after each function (0x80 to 0x100) has no FDE.
    CHECK(image.rule_at(kFunction + 0x100 * i + 0x80, r) == RuleStatus::kNoFde);
  }
  CHECK(image.rule_at(kFunction - 1, r) == RuleStatus::kNoFde);
  CHECK(image.rule_at(0, r) == RuleStatus::kNoFde);
}

TEST_CASE("eh_frame rules: remember and restore state, as around an early return") {
  EhFrameBuilder b(kAt, x86_64_cie_instructions());
  b.add({kFunction,
         0x40,
         {0x41, 0x0e, 0x10,  // +1: CFA = rsp + 16
          0x0a,              // remember
          0x42, 0x0e, 0x08,  // +2: CFA = rsp + 8 (the early return)
          0x41, 0x0b}});     // +1: restore: rsp + 16 again
  const Image image(b);
  FrameRule r{};
  REQUIRE(image.rule_at(kFunction + 3, r) == RuleStatus::kFound);
  CHECK(r.cfa_offset == 8);
  REQUIRE(image.rule_at(kFunction + 4, r) == RuleStatus::kFound);
  CHECK(r.cfa_offset == 16);
}

TEST_CASE("eh_frame rules: the outermost frame says so") {
  EhFrameBuilder b(kAt, x86_64_cie_instructions());
  b.add({kFunction, 0x20, {0x07, 0x10}});  // DW_CFA_undefined r16, as _start and clone3 have
  const Image image(b);
  FrameRule r{};
  REQUIRE(image.rule_at(kFunction + 4, r) == RuleStatus::kFound);
  CHECK(r.return_address == SavedAt::kUndefined);
}

TEST_CASE("eh_frame rules: what sprof's own unwinder is left to do") {
  FrameRule r{};
  SUBCASE("a CFA given by an expression (stack realignment)") {
    EhFrameBuilder b(kAt, x86_64_cie_instructions());
    b.add({kFunction, 0x20, {0x41, 0x0f, 0x03, 0x76, 0x78, 0x06}});  // def_cfa_expression
    CHECK(Image(b).rule_at(kFunction + 2, r) == RuleStatus::kUnsupported);
    CHECK(Image(b).rule_at(kFunction, r) == RuleStatus::kFound);  // before it
  }
  SUBCASE("a signal frame (augmentation S), as glibc's __restore_rt") {
    EhFrameBuilder b(kAt, x86_64_cie_instructions(), "zRS");
    b.add({kFunction, 0x20, {}});
    CHECK(Image(b).rule_at(kFunction, r) == RuleStatus::kUnsupported);
  }
  SUBCASE("%rbp kept in another register") {
    EhFrameBuilder b(kAt, x86_64_cie_instructions());
    b.add({kFunction, 0x20, {0x09, 0x06, 0x03}});  // DW_CFA_register r6 in r3
    CHECK(Image(b).rule_at(kFunction, r) == RuleStatus::kUnsupported);
  }
  SUBCASE("a CFA from a register the walk does not follow") {
    EhFrameBuilder b(kAt, x86_64_cie_instructions());
    b.add({kFunction, 0x20, {0x0d, 0x03}});  // CFA = rbx + 8
    CHECK(Image(b).rule_at(kFunction, r) == RuleStatus::kUnsupported);
  }
  SUBCASE("rules for other registers are read past") {
    EhFrameBuilder b(kAt, x86_64_cie_instructions());
    b.add({kFunction, 0x20, {0x83, 0x03, 0x10, 0x03, 0x01, 0x70, 0x2e, 0x10}});
    REQUIRE(Image(b).rule_at(kFunction, r) == RuleStatus::kFound);
    CHECK(r.cfa_offset == 8);
  }
}

TEST_CASE("eh_frame rules: malformed and truncated bytes give an answer, never a read outside") {
  EhFrameBuilder b(kAt, x86_64_cie_instructions());
  b.add({kFunction, 0x40, prologue_instructions()});
  const std::vector<uint8_t> whole = b.build();
  FrameRule r{};
  for (size_t size = 0; size < whole.size(); ++size) {
    CAPTURE(size);
    // A copy of exactly `size` bytes, so that a read past them is ASan's to report.
    const std::vector<uint8_t> cut(whole.begin(),
                                   whole.begin() + static_cast<std::ptrdiff_t>(size));
    const CfiImage image{cut.data(), cut.size(), kAt};
    const RuleStatus s = find_frame_rule(image, kAt, kFunction + 4, r);
    // The instructions past the row asked for may be cut without changing it.
    if (s == RuleStatus::kFound) CHECK(r.cfa_register == kDwarfRbp);
  }
  SUBCASE("a wrong version") {
    std::vector<uint8_t> bad = whole;
    bad[0] = 2;
    CHECK(find_frame_rule({bad.data(), bad.size(), kAt}, kAt, kFunction, r) ==
          RuleStatus::kMalformed);
  }
  SUBCASE("a table that points outside the image") {
    std::vector<uint8_t> bad = whole;
    const uint32_t far = 0x7fff0000;
    std::memcpy(bad.data() + 16, &far, 4);  // the only entry's FDE offset
    CHECK(find_frame_rule({bad.data(), bad.size(), kAt}, kAt, kFunction, r) ==
          RuleStatus::kMalformed);
  }
  SUBCASE("a count larger than the table") {
    std::vector<uint8_t> bad = whole;
    const uint32_t many = 0x10000000;
    std::memcpy(bad.data() + 8, &many, 4);
    CHECK(find_frame_rule({bad.data(), bad.size(), kAt}, kAt, kFunction, r) ==
          RuleStatus::kMalformed);
  }
  SUBCASE("an image that does not hold the header") {
    CHECK(find_frame_rule({whole.data(), whole.size(), kAt}, kAt + whole.size(), kFunction, r) ==
          RuleStatus::kMalformed);
    CHECK(find_frame_rule({whole.data(), whole.size(), kAt}, kAt - 4, kFunction, r) ==
          RuleStatus::kMalformed);
  }
}
