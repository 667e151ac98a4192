#include "symbol_table.hpp"

#include <algorithm>
#include <deque>

namespace sprof::symbolicator::detail {

SymbolTable SymbolTable::build(std::vector<Candidate> candidates) {
  // Stable: among equally ranked aliases the first in table order wins, as libdwfl picks them.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     if (a.start != b.start) return a.start < b.start;
                     if (a.rank != b.rank) return a.rank > b.rank;
                     return a.size > b.size;
                   });
  SymbolTable table;
  table.entries_.reserve(candidates.size());
  // A deque never moves what it holds, so views of its strings (short ones included) stay valid.
  auto names = std::make_shared<std::deque<std::string>>();
  for (Candidate& c : candidates) {
    if (!table.entries_.empty() && table.entries_.back().start == c.start) {
      Entry& kept = table.entries_.back();
      kept.size = std::max(kept.size, c.size);  // an alias may carry the size the winner lacks
      continue;
    }
    table.entries_.push_back(Entry{c.start, c.size, static_cast<uint32_t>(table.names_.size())});
    table.names_.push_back(names->emplace_back(std::move(c.name)));
  }
  table.owner_ = std::move(names);
  return table;
}

std::optional<SymbolTable::Symbol> SymbolTable::find(uint64_t address) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == entries_.begin()) return std::nullopt;
  const Entry& e = *(it - 1);
  if (e.size > 0) {
    if (address - e.start >= e.size) return std::nullopt;
  } else if (it == entries_.end()) {
    return std::nullopt;  // unsized and last: no bound to trust
  }
  return Symbol{e.start, e.size, names_[e.name], e.name};
}

}  // namespace sprof::symbolicator::detail
