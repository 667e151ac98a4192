// sprof/elf/dwarf_data.hpp
//
// Everything the symbolicator needs from a module's DWARF, copied out of libdw into plain
// vectors in one pass, so lookups never touch libdw (perfparser's lesson: per-address libdw
// queries are far too slow). Addresses are SVMAs as stated in the file.
//
// Scopes form a forest: each DW_TAG_subprogram with code is a root (parent -1), each
// DW_TAG_inlined_subroutine is a child of the nearest enclosing subprogram or inlined subroutine
// (lexical blocks are looked through). Member functions of local classes (a lambda's
// operator()) are roots too, found inside their enclosing function's DIE even when that is an
// abstract instance. A scope's `call_file`/`call_line` are its
// DW_AT_call_file/DW_AT_call_line: where, in the parent, the inlined code was called.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::elf {

inline constexpr uint32_t kNoFile = UINT32_MAX;

struct DwarfScope {
  uint32_t name = 0;          // index into DwarfData::names (linkage name if any, else DW_AT_name)
  uint32_t call_file = kNoFile;  // index into DwarfData::files
  uint32_t call_line = 0;
  int32_t parent = -1;        // index into DwarfData::scopes
  uint32_t depth = 0;         // 0 for a root subprogram, +1 per nesting level
  bool inlined = false;       // DW_TAG_inlined_subroutine
};

struct DwarfScopeRange {
  uint64_t begin = 0;  // [begin, end) SVMAs
  uint64_t end = 0;
  uint32_t scope = 0;  // index into DwarfData::scopes
};

struct DwarfLineRow {
  uint64_t address = 0;
  uint32_t file = kNoFile;  // index into DwarfData::files
  uint32_t line = 0;
  bool end_sequence = false;  // the first address after a sequence; carries no line
};

struct DwarfData {
  std::vector<std::string> names;   // interned function names (mangled where a linkage name exists)
  std::vector<std::string> files;   // interned source paths, joined with the unit's comp dir
  std::vector<DwarfScope> scopes;
  std::vector<DwarfScopeRange> ranges;  // unsorted; one or more per scope
  std::vector<DwarfLineRow> lines;      // unsorted, in line-program order per unit
};

// A source path as DWARF means it: a relative `path` (a line-table name whose directory entry is
// relative) is relative to the unit's DW_AT_comp_dir. The result is lexically normalised
// ("/b/obj/../src/f.c" -> "/b/src/f.c"); it stays relative if the comp dir is relative too, as in
// Debian's glibc ("./math" + "../sysdeps/x86_64/fpu/fclrexcpt.c" -> "sysdeps/x86_64/fpu/...").
std::string join_source_path(std::string_view comp_dir, std::string_view path);

// Reads all compile units of the ELF file at `path`. kNotFound if the file doesn't exist,
// kMalformed if it has no usable DWARF. Unknown or damaged DIEs are skipped, never fatal.
Result<DwarfData> read_dwarf_data(const std::string& path);

}  // namespace sprof::elf
