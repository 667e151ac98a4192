// sprof/elf/eh_frame_functions.hpp
//
// The functions a binary's own .eh_frame describes: one [pc_begin, pc_begin + pc_range) per FDE.
// Every function compiled with unwind tables (the default for C and C++ on x86-64) has one, even
// when no symbol names it (a stripped binary's static functions, GCC's cc1plus without its -dbg
// package), so these ranges are what groups such code by function.
//
// Read directly from the section by the same walk of CIEs and FDEs that checks CFI for the
// unwinder (LSB "Exception Frame" format), not through libdw's CFI API, which answers one
// address at a time. FDEs whose range does not decode, or whose CIE is damaged, are skipped and
// counted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/elf/elf_file_handle.hpp"

namespace sprof::elf {

struct FunctionRange {
  uint64_t begin = 0;  // SVMA of the first byte
  uint64_t end = 0;    // one past the last byte
};

struct EhFrameFunctions {
  std::vector<FunctionRange> functions;  // sorted by `begin`, empty ranges dropped
  uint64_t skipped_fdes = 0;             // undecodable ranges or damaged CIEs
};

// kNotFound if the file doesn't exist; a file without .eh_frame (or with .eh_frame as NOBITS, as
// in a separate debug file) yields no functions. kUnsupported for big-endian files.
Result<EhFrameFunctions> read_eh_frame_functions(const std::string& path);
// Same, from a file already opened.
Result<EhFrameFunctions> read_eh_frame_functions(const ElfFile& file);

}  // namespace sprof::elf
