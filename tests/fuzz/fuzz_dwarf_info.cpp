// Fuzz target: sprof's own .debug_info and .debug_line readers (elf/src/dwarf_native.hpp,
// dwarf_line_program.hpp): unit headers, abbreviation tables, DIEs and their forms, range lists
// (.debug_ranges, .debug_rnglists), string and address indexes, origin chains, line-program
// headers, file tables and opcodes. The input is the sections themselves, so that mutations
// reach the DIEs and line programs instead of the ELF container:
//   9 little-endian u32 lengths (.debug_info, .debug_abbrev, .debug_str, .debug_line_str,
//   .debug_str_offsets, .debug_addr, .debug_ranges, .debug_rnglists, .debug_line), then their
//   bytes in that order; a length past the end of the input is cut to what is left.
#include <cstddef>
#include <cstdint>
#include <span>

#include "dwarf_native.hpp"

namespace {

std::span<const uint8_t> take(std::span<const uint8_t>& rest, uint32_t length) {
  const size_t size = length < rest.size() ? length : rest.size();
  const std::span<const uint8_t> section = rest.first(size);
  rest = rest.subspan(size);
  return section;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kSections = 9;
  if (size < kSections * 4) return 0;
  uint32_t lengths[kSections];
  for (size_t i = 0; i < kSections; ++i) {
    lengths[i] = uint32_t{data[4 * i]} | uint32_t{data[4 * i + 1]} << 8 |
                 uint32_t{data[4 * i + 2]} << 16 | uint32_t{data[4 * i + 3]} << 24;
  }
  std::span<const uint8_t> rest(data + kSections * 4, size - kSections * 4);
  sprof::elf::detail::DwarfSectionBytes sections;
  sections.info = take(rest, lengths[0]);
  sections.abbrev = take(rest, lengths[1]);
  sections.str = take(rest, lengths[2]);
  sections.line_str = take(rest, lengths[3]);
  sections.str_offsets = take(rest, lengths[4]);
  sections.addr = take(rest, lengths[5]);
  sections.ranges = take(rest, lengths[6]);
  sections.rnglists = take(rest, lengths[7]);
  sections.line = take(rest, lengths[8]);
  const auto dwarf = sprof::elf::detail::NativeDwarf::open(sections);
  if (dwarf == nullptr) return 0;
  sprof::elf::detail::NativeOriginNames names;
  for (const sprof::elf::DwarfUnit& unit : dwarf->units()) {
    (void)dwarf->lines(unit.offset);
    const auto functions = dwarf->functions(unit.offset);
    if (!functions) continue;
    for (const sprof::elf::DwarfFunction& function : functions->functions) {
      (void)dwarf->inline_tree(unit.offset, function.offset, names);
    }
  }
  return 0;
}
