// symbolicator/elf/src/eh_frame_hdr_check.hpp
//
// Whether libdw would trust an .eh_frame_hdr that disagrees with .eh_frame. libdw 0.188 finds
// the FDE for a PC only by binary search in the header's table when the table is usable
// (dwarf_getcfi_elf.c, fde.c): it never falls back to scanning .eh_frame, so one flipped byte
// in the table (an unsorted entry, a wrong FDE pointer, a smaller count) hides most FDEs, and a
// bad version byte makes it refuse the whole .eh_frame. This check decodes the header the way
// libdw does and compares every table entry with sprof's own index of .eh_frame
// (cfi_section_index.hpp). Format: LSB 5.0 ".eh_frame_hdr". Pure: from bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "cfi_section_index.hpp"

namespace sprof::elf::detail {

struct EhFrameHdr {
  std::span<const uint8_t> bytes;
  uint64_t address = 0;           // sh_addr of .eh_frame_hdr
  uint64_t eh_frame_address = 0;  // sh_addr of .eh_frame
  uint8_t address_size = 8;
};

// Empty when libdw can rely on the header (or ignores its table anyway: no table, a zero
// count, or a table for another .eh_frame address); otherwise why it cannot: the table is not
// sorted, an entry does not name the FDE that starts at its address, an FDE with a range is
// missing from it, or the header itself is one libdw rejects.
std::string eh_frame_hdr_problem(const EhFrameHdr& hdr, const CfiSectionIndex& eh_frame);

}  // namespace sprof::elf::detail
