#include "kernel_symbol_map.hpp"

#include <algorithm>

namespace sprof::symbolicator::detail {

Result<std::shared_ptr<const KernelSymbolMap>> KernelSymbolMap::build(
    const elf::KernelSymbols& symbols, const elf::KernelImage& image, std::string source_path) {
  // Kernel text ends at `_etext` itself (the lib's end is only rounded up to a page).
  const uint64_t etext = symbols.address_of("_etext").value_or(image.text_end);
  std::vector<SymbolTable::Candidate> candidates;
  for (const elf::KernelSymbol& s : symbols.symbols()) {
    if (!s.module.empty() || !s.is_text() || s.address < image.text_start || s.address >= etext) {
      continue;
    }
    // Prefer global names, then names that are not section markers ("_text", "__pi__text").
    const uint32_t rank = (s.is_global() ? 2u : 0u) + (s.name.starts_with('_') ? 0u : 1u);
    candidates.push_back(SymbolTable::Candidate{s.address - image.text_start, 0, s.name, rank});
  }
  if (candidates.empty()) return fail(Errc::kNotFound, "no kernel text symbols in " + source_path);

  // Sizes: up to the next distinct address; the last symbol ends at `_etext`.
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  const uint64_t text_size = etext - image.text_start;
  for (size_t i = 0, j = 0; i < candidates.size(); i = j) {
    j = i;
    while (j < candidates.size() && candidates[j].start == candidates[i].start) ++j;
    const uint64_t end = j < candidates.size() ? candidates[j].start : text_size;
    for (size_t k = i; k < j; ++k) {
      candidates[k].size = end > candidates[k].start ? end - candidates[k].start : 0;
    }
  }
  auto map = std::make_shared<KernelSymbolMap>();
  map->symbols_ = SymbolTable::build(std::move(candidates));
  map->demangled_names_ = DemangledNames(map->symbols_.name_count());
  map->source_path_ = std::move(source_path);
  return std::shared_ptr<const KernelSymbolMap>(std::move(map));
}

std::optional<SymbolInfo> KernelSymbolMap::lookup(RelativeAddress address) const {
  auto symbol = symbols_.find(address.value);
  if (!symbol) return std::nullopt;
  SymbolInfo info;
  // Rust-for-Linux symbols use v0 mangling.
  info.function = demangled_names_.get(symbol->name_index, symbol->name);
  info.function_start = symbol->start;
  info.function_size = symbol->size;
  return info;
}

}  // namespace sprof::symbolicator::detail
