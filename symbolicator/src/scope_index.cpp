#include "scope_index.hpp"

#include <algorithm>

namespace sprof::symbolicator::detail {

void ScopeIndex::emit(uint64_t start, uint32_t value) {
  if (!starts_.empty() && starts_.back() == start) {
    values_.back() = value;  // a deeper range starting at the same address replaces it
    return;
  }
  if (!values_.empty() && values_.back() == value) return;  // same segment continues
  starts_.push_back(start);
  values_.push_back(value);
}

ScopeIndex ScopeIndex::build(std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.depth != b.depth) return a.depth < b.depth;
    if (a.end != b.end) return a.end > b.end;
    // Identical ranges (an assembler CU names one label per alias): the lowest value, i.e. the
    // first DIE, is pushed last and wins, as libdw's dwarf_getscopes returns the first match.
    return a.value > b.value;
  });
  ScopeIndex index;
  struct Open {
    uint64_t end;
    uint32_t value;
  };
  std::vector<Open> open;  // the chain of ranges containing the sweep position, outermost first
  auto close_until = [&](uint64_t position) {
    while (!open.empty() && open.back().end <= position) {
      const uint64_t end = open.back().end;
      open.pop_back();
      index.emit(end, open.empty() ? kGap : open.back().value);
    }
  };
  for (const Range& r : ranges) {
    close_until(r.begin);
    const uint64_t end = open.empty() ? r.end : std::min(r.end, open.back().end);
    if (end <= r.begin) continue;
    index.emit(r.begin, r.value);
    open.push_back(Open{end, r.value});
  }
  close_until(UINT64_MAX);
  index.starts_.shrink_to_fit();
  index.values_.shrink_to_fit();
  return index;
}

std::optional<uint32_t> ScopeIndex::find(uint64_t address) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), address);
  if (it == starts_.begin()) return std::nullopt;
  const uint32_t value = values_[static_cast<size_t>(it - starts_.begin()) - 1];
  if (value == kGap) return std::nullopt;
  return value;
}

}  // namespace sprof::symbolicator::detail
