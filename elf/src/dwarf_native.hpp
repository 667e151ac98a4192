// elf/src/dwarf_native.hpp (private to sprof::elf)
//
// sprof's own reader of .debug_info, behind DwarfReader (dwarf_reader.hpp) for the DWARF that
// compilers write every day: DWARF 2-5 compile and partial units as GCC, Clang and rustc emit
// them. It answers units(), functions(), inline_tree() and lines() with exactly what the libdw
// walks (dwarf_walk.cpp) answer, at a fraction of their cost: the abbreviation tables are read once
// per module, a DIE's attributes are decoded in one pass that keeps only the few the walks use,
// and a type's subtree is skipped by its DW_AT_sibling (docs/design.md, "Reading DIEs").
//
// What it does not read, the caller reads through libdw instead:
//   - a whole module with split DWARF (skeleton units, GNU's DW_AT_GNU_dwo_*), or whose unit
//     headers it cannot parse: `open` returns null;
//   - a unit or function that uses a form it does not know, dwz's references into a
//     supplementary file that is not at hand, DWARF 5's *_sup forms, type signatures, or index
//     forms without their base attribute: that call returns nullopt.
// Damaged DIEs are skipped as in the libdw walks; nothing here trusts an offset, a length or a
// nesting depth the bytes state.
//
// Threading: after `open` the object is immutable; calls may run on any number of threads, each
// with a NativeOriginNames of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sprof/elf/dwarf_reader.hpp"

namespace sprof::elf::detail {

// Each section's bytes as libdw uses them (inflated where compressed); empty when absent.
struct DwarfSectionBytes {
  std::span<const uint8_t> info;
  std::span<const uint8_t> abbrev;
  std::span<const uint8_t> str;
  std::span<const uint8_t> line_str;
  std::span<const uint8_t> str_offsets;
  std::span<const uint8_t> addr;
  std::span<const uint8_t> ranges;
  std::span<const uint8_t> rnglists;
  std::span<const uint8_t> line;
};

// Names by the .debug_info offset of the DIE that DW_AT_abstract_origin or DW_AT_specification
// refers to (as OriginNames in dwarf_walk.hpp, which keys libdw's DIEs).
using NativeOriginNames = std::unordered_map<uint64_t, std::string_view>;

class NativeDwarf {
 public:
  // Null when the module needs libdw throughout (see above). `supplementary`: the sections of
  // the file that .gnu_debugaltlink names (dwz), when libdw found it; its DW_FORM_GNU_strp_alt
  // strings and DW_FORM_GNU_ref_alt DIEs are then read here too.
  static std::unique_ptr<NativeDwarf> open(const DwarfSectionBytes& sections,
                                           const DwarfSectionBytes* supplementary = nullptr);
  ~NativeDwarf();
  NativeDwarf(const NativeDwarf&) = delete;
  NativeDwarf& operator=(const NativeDwarf&) = delete;

  // As DwarfReader::units().
  const std::vector<DwarfUnit>& units() const;
  // As DwarfReader::functions() and inline_tree(); nullopt: ask libdw.
  std::optional<DwarfFunctions> functions(uint64_t unit) const;
  std::optional<DwarfInlineTree> inline_tree(uint64_t unit, uint64_t function,
                                             NativeOriginNames& names) const;
  // As DwarfReader::lines() for a unit it holds, read by dwarf_line_program.hpp; nullopt: ask
  // libdw.
  std::optional<DwarfLines> lines(uint64_t unit) const;

  struct Impl;

 private:
  explicit NativeDwarf(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::elf::detail
