// symbol_table.hpp (private)
//
// A sorted, deduplicated symbol index: one entry per start address, binary-searched per lookup
// (never dwfl_module_addrinfo per address, which scans the table each call: 32-132 us here).
// Where several names share an address the highest `rank` wins (the caller ranks aliases; see
// `preference` in module_symbol_map.cpp),
// then the larger size, then the first in input order.
// Entries without a size extend to the next entry's start.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sprof::symbolicator::detail {

struct ModuleIndexCodec;

class SymbolTable {
 public:
  struct Candidate {
    uint64_t start = 0;
    uint64_t size = 0;  // 0 if unknown
    std::string name;
    uint32_t rank = 0;
  };
  struct Symbol {
    uint64_t start = 0;
    uint64_t size = 0;  // as known; 0 if the symbol had none
    std::string_view name;
    uint32_t name_index = 0;  // stable per name, < name_count(); for caching derived names
  };

  SymbolTable() = default;
  static SymbolTable build(std::vector<Candidate> candidates);

  std::optional<Symbol> find(uint64_t address) const;
  size_t size() const { return entries_.size(); }
  size_t name_count() const { return names_.size(); }

 private:
  friend struct ModuleIndexCodec;  // module_index_codec.cpp: the symbol cache's file format
  struct Entry {
    uint64_t start;
    uint64_t size;
    uint32_t name;  // index into names_
  };
  std::vector<Entry> entries_;
  std::vector<std::string_view> names_;  // into owner_'s bytes
  // What holds the names: the candidates' strings, or the symbol cache's file the table was
  // read from (which then needs no copy of each name).
  std::shared_ptr<const void> owner_;
};

}  // namespace sprof::symbolicator::detail
