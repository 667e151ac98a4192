#include "line_table.hpp"

#include <algorithm>

namespace sprof::symbolicator::detail {

LineTable LineTable::build(std::vector<elf::DwarfLineRow> rows, uint64_t base) {
  // Among rows at one address, sequence ends sort first, so that a sequence starting where the
  // previous one ended keeps its first row (libdw orders them the same way); otherwise the
  // line-program order is kept.
  const auto before = [](const elf::DwarfLineRow& a, const elf::DwarfLineRow& b) {
    if (a.address != b.address) return a.address < b.address;
    return a.end_sequence > b.end_sequence;
  };
  // One unit's rows come from libdw in this order already.
  if (!std::is_sorted(rows.begin(), rows.end(), before)) {
    std::stable_sort(rows.begin(), rows.end(), before);
  }
  LineTable table;
  table.addresses_.reserve(rows.size() / 2);
  table.locations_.reserve(rows.size() / 2);
  for (const elf::DwarfLineRow& row : rows) {
    if (row.address < base) continue;
    const uint64_t address = row.address - base;
    const Location location{row.end_sequence ? kEndSequence : row.file, row.line};
    if (!table.addresses_.empty() && table.addresses_.back() == address) {
      table.locations_.back() = location;  // the last row at an address is the one in effect
      continue;
    }
    if (!table.locations_.empty() && table.locations_.back().file == location.file &&
        table.locations_.back().line == location.line) {
      continue;  // same place as the row before: nothing new
    }
    table.addresses_.push_back(address);
    table.locations_.push_back(location);
  }
  table.addresses_.shrink_to_fit();
  table.locations_.shrink_to_fit();
  return table;
}

std::optional<LineTable::Location> LineTable::find(uint64_t address) const {
  auto it = std::upper_bound(addresses_.begin(), addresses_.end(), address);
  if (it == addresses_.begin()) return std::nullopt;
  const Location& location = locations_[static_cast<size_t>(it - addresses_.begin()) - 1];
  if (location.file == kEndSequence) return std::nullopt;
  return location;
}

}  // namespace sprof::symbolicator::detail
