// sprof/elf/dwarf_data.hpp
//
// The plain values sprof copies out of a module's DWARF (see dwarf_reader.hpp for how they are
// read): address ranges, function and inline scopes, line-table rows. Addresses are SVMAs as
// stated in the file.
//
// Scopes form trees: each DW_TAG_subprogram with code is a root, each DW_TAG_inlined_subroutine
// a child of the nearest enclosing subprogram or inlined subroutine (lexical blocks are looked
// through). A scope's `call_file`/`call_line` are its DW_AT_call_file/DW_AT_call_line: where, in
// the parent, the inlined code was called.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sprof::elf {

inline constexpr uint32_t kNoFile = UINT32_MAX;

struct DwarfRange {
  uint64_t begin = 0;  // [begin, end) SVMAs
  uint64_t end = 0;
};

struct DwarfScope {
  // The linkage name if any, else DW_AT_name (following DW_AT_abstract_origin and
  // DW_AT_specification). A view into the DWARF; see DwarfReader for how long it is valid.
  std::string_view name;
  uint32_t call_file = kNoFile;  // index into the unit's file table (DwarfReader::lines)
  uint32_t call_line = 0;
  int32_t parent = -1;   // index into the tree's scopes; -1 for the function itself
  uint32_t depth = 0;    // 0 for the function, +1 per inlining level
  bool inlined = false;  // DW_TAG_inlined_subroutine
};

struct DwarfScopeRange {
  uint64_t begin = 0;  // [begin, end) SVMAs
  uint64_t end = 0;
  uint32_t scope = 0;  // index into the tree's scopes
};

struct DwarfLineRow {
  uint64_t address = 0;
  uint32_t file = kNoFile;  // index into the unit's file table
  uint32_t line = 0;
  bool end_sequence = false;  // the first address after a sequence; carries no line
};

// A source path as DWARF means it: a relative `path` (a line-table name whose directory entry is
// relative) is relative to the unit's DW_AT_comp_dir. The result is lexically normalised
// ("/b/obj/../src/f.c" -> "/b/src/f.c"); it stays relative if the comp dir is relative too, as in
// Debian's glibc ("./math" + "../sysdeps/x86_64/fpu/fclrexcpt.c" -> "sysdeps/x86_64/fpu/...").
std::string join_source_path(std::string_view comp_dir, std::string_view path);

}  // namespace sprof::elf
