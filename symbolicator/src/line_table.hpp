// line_table.hpp (private)
//
// A DWARF unit's line table (or several merged) as one address-sorted array. The row in effect at
// an address is the last row at or below it (as libdw's dwarf_getsrc_die picks it), unless that row
// ends a sequence, in which case the address has no line. Consecutive rows with the same file and
// line are merged at build time.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sprof/elf/dwarf_data.hpp"

namespace sprof::symbolicator::detail {

struct ModuleIndexCodec;

class LineTable {
 public:
  struct Location {
    uint32_t file = elf::kNoFile;
    uint32_t line = 0;
  };

  LineTable() = default;
  // `base` is subtracted from every address (v0: relative = SVMA - v0); rows below it are dropped.
  static LineTable build(std::vector<elf::DwarfLineRow> rows, uint64_t base);

  std::optional<Location> find(uint64_t address) const;
  size_t size() const { return addresses_.size(); }

 private:
  friend struct ModuleIndexCodec;  // module_index_codec.cpp: the symbol cache's file format
  std::vector<uint64_t> addresses_;
  std::vector<Location> locations_;  // file == kEndSequence marks a sequence end
  static constexpr uint32_t kEndSequence = elf::kNoFile - 1;
};

}  // namespace sprof::symbolicator::detail
