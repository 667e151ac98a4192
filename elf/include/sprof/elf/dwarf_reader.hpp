// sprof/elf/dwarf_reader.hpp
//
// A module's DWARF, read a piece at a time as lookups need it: first the units and the addresses
// each unit claims (read once, cheaply), then for one unit its functions and its line table, and
// for one function its inline tree. A symbolicator that reads only the units and functions its
// addresses fall in does a fraction of the work of reading everything: a large C++ binary holds
// ~120 k subprograms and ~800 k inline DIEs, of which a profile touches a few percent.
//
// What is read, and what is skipped:
//   - functions: every DW_TAG_subprogram with code, at namespace level or defined inside another
//     function's DIE (member functions of local classes such as a lambda's operator(), GNU C
//     nested functions), even inside an abstract instance (a function inlined everywhere still
//     holds the one concrete copy of its lambdas). Their inline subtrees are not entered here.
//   - inline trees: the function's DW_TAG_inlined_subroutines, nested, looking through lexical
//     blocks. Types are never entered.
//
// Threading: every method is thread-safe, and up to `concurrency` calls (given to `open`) run in
// parallel, each on a libdw handle of its own (libdw handles are not thread-safe); further calls
// wait for a handle. All handles share one libelf handle, so compressed sections
// (SHF_COMPRESSED) are inflated once, by the first.
//
// Lifetimes: names (`DwarfScope::name`) point into the file's sections and stay valid while the
// reader lives. Line tables that libdw reads are read on separate libdw handles, because libdw
// keeps every line table it has parsed until its handle ends: a line handle ends after
// `kRetainedLineRows` rows and a fresh one begins on the same (already inflated) sections.
//
// Split DWARF (-gsplit-dwarf; DWARF 5 skeleton units, or DWARF 4 with GNU's extension): a unit in
// the file is a skeleton that names, by DW_AT_dwo_name relative to DW_AT_comp_dir or to the
// file's directory, the .dwo file that holds its DIEs. libdw finds and opens the .dwo (each handle
// its own copy, kept as long as the handle). Functions and inline trees come from the .dwo, line
// rows from the skeleton's line table in the file. A unit whose .dwo is missing (or is not a
// regular file) has lines but no functions, so its addresses are named from the symbol table.
// DWARF packages (.dwp) are not read: libdw 0.188 cannot.
//
// Who parses: sprof's own readers of .debug_info and .debug_line (dwarf_native.hpp,
// dwarf_line_program.hpp) answer units(), functions(), inline_tree() and lines() for the DWARF
// that GCC, Clang and rustc write, in about half of libdw's time; libdw answers the rest (split
// DWARF, forms the own readers do not know, anything they find damaged or would read otherwise
// than libdw). Both give the same answers (tests/elf/dwarf_parity_test.cpp checks every unit,
// function and line table of real binaries).
//
// Damaged DIEs are skipped, never fatal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/elf/dwarf_data.hpp"
#include "sprof/elf/elf_file_handle.hpp"

namespace sprof::elf {

struct DwarfUnit {
  // Of the unit's DIE in the file (a split unit's skeleton); names the unit in later calls.
  uint64_t offset = 0;
  std::vector<DwarfRange> ranges;  // what the unit DIE claims; empty when it states none
};

struct DwarfFunction {
  // Of its DIE in its unit's DWARF (the file, or the unit's .dwo): names it, with the unit, for
  // `DwarfReader::inline_tree`.
  uint64_t offset = 0;
  // 0, or +1 per function whose DIE it is defined in; the deeper function wins where ranges
  // overlap.
  uint32_t depth = 0;
  uint32_t first_range = 0;  // into DwarfFunctions::ranges
  uint32_t range_count = 0;
};

struct DwarfFunctions {
  std::vector<DwarfFunction> functions;  // in DIE order
  std::vector<DwarfRange> ranges;        // non-empty ranges, grouped per function
};

struct DwarfInlineTree {
  std::vector<DwarfScope> scopes;       // scopes[0] is the function itself; parents come first
  std::vector<DwarfScopeRange> ranges;  // non-empty ranges, one or more per scope
};

// One unit's line table: rows in libdw's order (by address, a sequence's end before a row
// starting at the same address, otherwise line-program order) and the file table they index
// (DwarfLineRow::file, DwarfScope::call_file), each entry joined with the unit's DW_AT_comp_dir
// (join_source_path); an entry that names nothing is empty. A split unit's file tables may differ:
// call files index the .dwo's, which comes first; when the rows' (the skeleton's) is another,
// it follows, and rows index past the first.
struct DwarfLines {
  std::vector<DwarfLineRow> rows;
  std::vector<std::string> files;
};

// kLibdw: libdw alone, for comparing the two parsers.
enum class DwarfParser { kOwnThenLibdw, kLibdw };

class DwarfReader {
 public:
  // Line rows parsed by one libdw line handle before it is ended (about 40 bytes each in libdw).
  static constexpr size_t kRetainedLineRows = size_t{8} * 1024;

  // kNotFound if the file doesn't exist, kMalformed if it has no usable DWARF. `concurrency`
  // (at least 1) is how many calls may read at once.
  static Result<std::unique_ptr<DwarfReader>> open(const std::string& path, size_t concurrency,
                                                   DwarfParser parser = DwarfParser::kOwnThenLibdw);
  // Same, on a file already opened, which the reader keeps.
  static Result<std::unique_ptr<DwarfReader>> open(SharedElfFile file, size_t concurrency,
                                                   DwarfParser parser = DwarfParser::kOwnThenLibdw);
  ~DwarfReader();
  DwarfReader(const DwarfReader&) = delete;
  DwarfReader& operator=(const DwarfReader&) = delete;

  // Compile, partial and skeleton units, in file order (type units hold no code).
  std::vector<DwarfUnit> units();
  // The functions with code of the unit whose DIE is at `unit`.
  DwarfFunctions functions(uint64_t unit);
  // The function whose DIE is at `function` in unit `unit` and the subroutines inlined into it;
  // empty if the DIE cannot be read. Call files are as the DIEs state them: check them against
  // the unit's file table (`lines`).
  DwarfInlineTree inline_tree(uint64_t unit, uint64_t function);
  DwarfLines lines(uint64_t unit);
  // Gives back the pages of the mapped file read so far (they are read again from the page
  // cache when needed). The reader also does this by itself after every few MB of units walked.
  void release_file_pages();
  // Whether the own reader parses this module's DIEs (false: libdw throughout).
  bool parses_dies_itself() const;

 private:
  struct Impl;
  explicit DwarfReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::elf
