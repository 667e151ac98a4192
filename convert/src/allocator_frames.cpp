#include "sprof/convert/allocator_frames.hpp"

#include <algorithm>

namespace sprof::convert {

bool AllocatorFrames::contains(const Mapping& mapping, Avma address) {
  // Files only: anonymous memory, JIT code and the vdso hold no allocator.
  if (mapping.identity == nullptr || mapping.file.path.empty() || mapping.file.path[0] != '/') {
    return false;
  }
  const Ranges& ranges = ranges_of(mapping.file.path);
  const Svma svma = mapping.file.to_svma(address);
  auto after = std::upper_bound(ranges.begin(), ranges.end(), svma,
                                [](Svma a, const auto& range) { return a < range.first; });
  return after != ranges.begin() && svma < std::prev(after)->second;
}

const AllocatorFrames::Ranges& AllocatorFrames::ranges_of(const std::string& path) {
  if (auto it = by_path_.find(path); it != by_path_.end()) return it->second;
  Ranges ranges;
  // A file without symbols (stripped, unreadable) has no ranges: its frames stay.
  if (auto symbols = files_.function_symbols(path); symbols.has_value()) {
    for (const elf::ElfSymbol& s : *symbols) {
      // An ifunc symbol's address is its resolver's, and a sizeless one has no extent.
      if (s.size == 0 || s.ifunc || !is_wrapper_(s.name)) continue;
      ranges.emplace_back(Svma{s.address}, Svma{s.address + s.size});
    }
  }
  // Both tables name most functions, and aliases share code: merged, the ranges are disjoint
  // and one search finds the only one that can hold an address.
  std::sort(ranges.begin(), ranges.end());
  Ranges merged;
  for (const auto& range : ranges) {
    if (!merged.empty() && range.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  return by_path_.emplace(path, std::move(merged)).first->second;
}

}  // namespace sprof::convert
