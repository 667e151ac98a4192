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
  for (JitSymbol& s : symbols) {
    candidates.push_back(SymbolTable::Candidate{s.start, s.size, std::move(s.name), order++});
  }
  auto map = std::make_shared<JitSymbolMap>();
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
  return info;
}

}  // namespace sprof::symbolicator::detail
