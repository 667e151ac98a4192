#include "jit_symbol_map.hpp"

namespace sprof::symbolicator::detail {

bool JitSymbolMap::handles(const std::string& debug_name) {
  return jit_file_kind(debug_name) != JitFileKind::kNone;
}

Result<std::shared_ptr<const JitSymbolMap>> JitSymbolMap::build(const std::string& path,
                                                                const std::string& breakpad_id) {
  const auto base = jit_base_from_breakpad_id(breakpad_id);
  if (!base) return fail(Errc::kMalformed, "JIT lib id " + breakpad_id + " has no base address");
  SPROF_TRY(std::vector<JitSymbol> symbols, read_jit_symbol_file(path));
  if (symbols.empty()) return fail(Errc::kMalformed, path + ": no JIT symbols");
  return from_symbols(std::move(symbols), *base, path);
}

std::shared_ptr<const JitSymbolMap> JitSymbolMap::from_symbols(std::vector<JitSymbol> symbols,
                                                               uint64_t base, std::string path) {
  std::vector<SymbolTable::Candidate> candidates;
  candidates.reserve(symbols.size());
  // A JIT reuses freed code addresses; the later entry describes the code that ran last, so it
  // ranks higher (the table keeps the highest rank per start address).
  uint32_t order = 0;
  auto map = std::make_shared<JitSymbolMap>();
  for (JitSymbol& s : symbols) {
    candidates.push_back(SymbolTable::Candidate{s.start, s.size, std::move(s.name), order++});
    // The same ranking for line tables: the later code at a start wins, with or without lines.
    if (s.lines) {
      map->lines_[s.start] = std::move(s.lines);
    } else {
      map->lines_.erase(s.start);
    }
  }
  map->symbols_ = SymbolTable::build(std::move(candidates));
  map->demangled_names_ = DemangledNames(map->symbols_.name_count());
  map->base_ = base;
  map->path_ = std::move(path);
  return map;
}

std::optional<SymbolInfo> JitSymbolMap::lookup(RelativeAddress address) const {
  auto symbol = symbols_.find(address.value + base_);
  if (!symbol || symbol->start < base_) return std::nullopt;
  SymbolInfo info;
  // JITs written in C++ (and the test's fake JIT) may list mangled names.
  info.function = demangled_names_.get(symbol->name_index, symbol->name);
  info.function_start = symbol->start - base_;
  info.function_size = symbol->size;
  if (auto it = lines_.find(symbol->start); it != lines_.end()) {
    if (const JitLineTable::Entry* e = it->second->find(address.value + base_ - symbol->start)) {
      info.file = it->second->files[e->file];
      info.line = e->line;
    }
  }
  return info;
}

}  // namespace sprof::symbolicator::detail
