// elf/src/eh_frame_image.hpp
//
// A minimal ELF image holding only a copy of a module's .eh_frame, at the section's original
// address, for libdw to read CFI from when the module's own sections cannot be trusted as they
// are. libdw (dwarf_getcfi_elf) finds .eh_frame and .eh_frame_hdr by section name; this image
// has no .eh_frame_hdr, so libdw scans .eh_frame itself; in the copy every FDE the index found
// invalid is an unreferenced CIE, so libdw never runs its instructions, and every instruction
// the index dropped is DW_CFA_nop. PC-relative pointers
// stay right because the section keeps its address. ELF64 only (the class sprof unwinds).
#pragma once

#include <elf.h>

#include <cstdint>
#include <span>
#include <vector>

#include "cfi_section_index.hpp"

namespace sprof::elf::detail {

// `original` supplies e_ident, e_type and e_machine (libdw picks the ABI's default rules by
// machine).
std::vector<uint8_t> eh_frame_only_image(const Elf64_Ehdr& original,
                                         std::span<const uint8_t> eh_frame,
                                         uint64_t eh_frame_address, const CfiSectionIndex& index);

// A minimal ELF image holding copies of a module's .eh_frame_hdr and .eh_frame, in that order, at
// their original addresses. libdw uses a search table only when .eh_frame_hdr comes before
// .eh_frame in the section headers; gold and mold put it after, and libdw then scans .eh_frame
// linearly, keeping every FDE it passes in a tree (libLLVM: 5 MB of .eh_frame, ~50 ms and tens of
// MB on the first lookups). With the order reversed in the copy, libdw binary-searches the table as
// it does for GNU ld's files. For a table that EhFrameSearchTable::searchable accepted.
std::vector<uint8_t> searchable_eh_frame_image(const Elf64_Ehdr& original,
                                               std::span<const uint8_t> eh_frame_hdr,
                                               uint64_t eh_frame_hdr_address,
                                               std::span<const uint8_t> eh_frame,
                                               uint64_t eh_frame_address);

}  // namespace sprof::elf::detail
