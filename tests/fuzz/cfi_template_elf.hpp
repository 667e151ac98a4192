// tests/fuzz/cfi_template_elf.hpp
//
// The input of the CFI-module fuzz target is CFI bytes, not a whole ELF file: mutating a whole
// file mostly breaks its headers, mutating the CFI reaches libdw's CFI reader and sprof's
// translation of its rows. This builds the ELF image around them, with sections at fixed
// addresses. The seed CFI comes from a program linked at the same addresses
// (tests/fuzz/CMakeLists.txt), so its pc-relative FDE pointers land in the template's .text.
//
// Input: byte 0 selects the layout (modulo 3):
//   0  .eh_frame = the rest
//   1  .debug_frame = the rest
//   2  bytes 1-2: n (u16, little endian); .eh_frame_hdr = the next n bytes; .eh_frame = the rest
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "elf_image_builder.hpp"

namespace sprof::fuzz {

inline constexpr uint64_t kTemplateTextAddr = 0x1000;
inline constexpr uint64_t kTemplateTextSize = 0x1000;
inline constexpr uint64_t kTemplatePltAddr = 0x2000;
inline constexpr uint64_t kTemplatePltSize = 0x100;
inline constexpr uint64_t kTemplateEhFrameHdrAddr = 0x2800;
inline constexpr uint64_t kTemplateEhFrameAddr = 0x3000;

// The template image for a fuzz input (see the layout above).
inline std::vector<uint8_t> cfi_template_image(std::span<const uint8_t> input) {
  std::vector<test::ElfImageSection> sections;
  sections.push_back({".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, kTemplateTextAddr,
                      std::vector<uint8_t>(kTemplateTextSize, 0x90)});
  sections.push_back({".plt", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, kTemplatePltAddr,
                      std::vector<uint8_t>(kTemplatePltSize, 0x90)});
  if (input.empty()) return test::build_elf_image(sections);
  const unsigned mode = input[0] % 3;
  input = input.subspan(1);
  if (mode == 1) {
    sections.push_back({".debug_frame", SHT_PROGBITS, 0, 0, {input.begin(), input.end()}});
    return test::build_elf_image(sections);
  }
  if (mode == 2) {
    size_t n = 0;
    if (input.size() >= 2) n = std::min<size_t>(input[0] | (input[1] << 8), input.size() - 2);
    input = input.subspan(input.size() >= 2 ? 2 : input.size());
    sections.push_back({".eh_frame_hdr",
                        SHT_PROGBITS,
                        SHF_ALLOC,
                        kTemplateEhFrameHdrAddr,
                        {input.begin(), input.begin() + static_cast<ptrdiff_t>(n)}});
    input = input.subspan(n);
  }
  sections.push_back(
      {".eh_frame", SHT_PROGBITS, SHF_ALLOC, kTemplateEhFrameAddr, {input.begin(), input.end()}});
  return test::build_elf_image(sections);
}

}  // namespace sprof::fuzz
