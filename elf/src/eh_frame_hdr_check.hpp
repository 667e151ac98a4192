// elf/src/eh_frame_hdr_check.hpp
//
// Whether libdw would trust an .eh_frame_hdr that disagrees with .eh_frame. libdw 0.188 finds
// the FDE for a PC only by binary search in the header's table when the table is usable
// (dwarf_getcfi_elf.c, fde.c): it never falls back to scanning .eh_frame, so one flipped byte
// in the table (an unsorted entry, a wrong FDE pointer, a smaller count) hides most FDEs, and a
// bad version byte makes it refuse the whole .eh_frame. This check decodes the header the way
// libdw does and compares every table entry with sprof's own index of .eh_frame
// (cfi_section_index.hpp). Format: LSB 5.0 ".eh_frame_hdr". Pure: from bytes.
//
// The same decoding also serves the cheaper path (cfi_module.cpp): when the table is sorted and
// points only into .eh_frame, sprof can search it exactly as libdw will and check just the FDE
// that libdw is about to read, instead of every FDE of the file up front.
#pragma once

#include <cstdint>
#include <optional>
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

// Where a header's search table lies in it and how its values are encoded.
struct SearchTableLayout {
  uint8_t encoding = 0;    // DW_EH_PE_* of both values of an entry
  uint8_t value_size = 0;  // bytes of one value
  uint64_t count = 0;      // entries
  size_t first = 0;        // byte position of entry 0 in the header
};

// The header's search table, as libdw will binary-search it.
class EhFrameSearchTable {
 public:
  // The table when libdw will search it and sprof can search it the same way: the header
  // decodes, the table is in use (libdw does not ignore it), every entry decodes, the entries
  // are in order, and each points inside .eh_frame (`eh_frame_size` bytes). nullopt otherwise,
  // including when the table is fine but absent or ignored (libdw then scans .eh_frame).
  static std::optional<EhFrameSearchTable> searchable(const EhFrameHdr& hdr,
                                                      uint64_t eh_frame_size);

  struct Hit {
    uint64_t fde_offset = 0;  // .eh_frame offset of the FDE's length field
    uint64_t start = 0;       // the entry's initial location
  };
  // The entry libdw 0.188's binary_search_fde picks for `address`: the last one whose initial
  // location is <= `address`, or nullopt when `address` precedes them all.
  std::optional<Hit> find(uint64_t address) const;

  uint64_t size() const { return layout_.count; }

 private:
  EhFrameSearchTable(const EhFrameHdr& hdr, const SearchTableLayout& layout)
      : hdr_(hdr), layout_(layout) {}
  // Entry `i`; nullopt when it does not decode or its FDE pointer precedes .eh_frame.
  std::optional<Hit> entry(uint64_t i) const;

  EhFrameHdr hdr_;
  SearchTableLayout layout_;
};

}  // namespace sprof::elf::detail
