// elf/src/dwarf_line_program.hpp (private to sprof::elf)
//
// sprof's own reader of a unit's line program in .debug_line (DWARF 2-5), behind
// DwarfReader::lines for the units the own .debug_info reader holds (dwarf_native.hpp). It gives
// exactly the rows and file names libdw's dwarf_getsrclines and dwarf_getsrcfiles give, without
// libdw's cost: libdw links every row into a list, sorts pointers to them and keeps every table
// it parsed for the life of its handle (DwarfReader works around that by ending line handles).
//
// libdw's answers, which this one matches (docs/design.md, "Reading line tables"):
//   - rows sorted by address; at one address a sequence's end comes before a row that starts
//     there, and otherwise rows keep the program's order; the last row ends a sequence;
//   - file names as libdw composes them: an absolute name alone, else its directory, '/', the
//     name; directory 0 of DWARF 2-4 is the unit's DW_AT_comp_dir (none: the name alone), and
//     file 0 of DWARF 2-4, which the format does not define, is "???".
// Anything else (a header that does not add up, an opcode whose operands are not the standard
// ones, DW_LNE_define_file, a form it does not know, values libdw's fields cannot hold) returns
// nullopt, and the caller asks libdw: each answer comes from one of the two, and both agree
// where both read (tests/elf/dwarf_parity_test.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/elf/dwarf_data.hpp"

namespace sprof::elf::detail {

struct LineSections {
  std::span<const uint8_t> line;
  std::span<const uint8_t> str;       // for DW_FORM_strp names (DWARF 5)
  std::span<const uint8_t> line_str;  // for DW_FORM_line_strp names (DWARF 5)
};

struct LineProgram {
  std::vector<DwarfLineRow> rows;  // DwarfLineRow::file indexes `files`
  std::vector<std::string> files;  // as libdw's dwarf_filesrc names them (not yet joined)
};

// The line program at `offset` of .debug_line, for a unit of `address_size` whose
// DW_AT_comp_dir is `comp_dir` (nullopt if it has none).
std::optional<LineProgram> read_line_program(const LineSections& sections, uint64_t offset,
                                             uint8_t address_size,
                                             std::optional<std::string_view> comp_dir);

}  // namespace sprof::elf::detail
