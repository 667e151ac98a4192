#include "module_symbol_map.hpp"

#include <algorithm>
#include <cstdio>

#include "sprof/core/log.hpp"
#include "sprof/elf/eh_frame_functions.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/symbolicator/function_name.hpp"

namespace sprof::symbolicator::detail {
namespace {

// Which of several names at one address the UI shows: an exported one (in .dynsym) first, then
// the public spelling (fewer leading underscores: glibc's "sched_getparam" over its
// "__sched_getparam", "malloc" over "__libc_malloc"), then ELF binding global > weak > local.
// An IFUNC symbol ("memchr") sits at its resolver's address but names the functions it picks,
// so it is the last choice for naming the resolver's code ("memchr_ifunc").
uint32_t preference(const elf::ElfSymbol& s) {
  if (s.ifunc) return 0;
  const size_t underscores = std::min<size_t>(s.name.find_first_not_of('_'), 3);
  return (s.from_dynsym ? 100u : 0u) + static_cast<uint32_t>(3 - underscores) * 10u +
         static_cast<uint32_t>(s.binding) + 1;
}

void add_symbols(const std::string& path, uint64_t base, std::vector<SymbolTable::Candidate>& out) {
  auto symbols = elf::read_symbols(path);
  if (!symbols) {
    log::debug("symbols of " + path + ": " + symbols.error().message);
    return;
  }
  for (elf::ElfSymbol& s : *symbols) {
    if (s.address < base) continue;
    // .symtab spells versioned definitions "name@VERSION" / "name@@VERSION" (.symver); the
    // version is not part of the function's name.
    if (const size_t at = s.name.find('@'); at != std::string::npos && at > 0) s.name.resize(at);
    const uint32_t rank = preference(s);
    out.push_back(SymbolTable::Candidate{s.address - base, s.size, std::move(s.name), rank});
  }
}

}  // namespace

Result<std::shared_ptr<const ModuleSymbolMap>> ModuleSymbolMap::build(
    const elf::LocatedModule& located, std::string module_name) {
  auto map = std::make_shared<ModuleSymbolMap>();
  map->module_name_ = std::move(module_name);
  map->debug_file_ = located.debug_path.empty() ? located.symbols_path : located.debug_path;
  map->binary_file_ = located.binary_path;
  // Relative addresses are SVMA - v0 (contract section 3.3). A separate debug file keeps the
  // binary's program headers, so the binary's v0 applies to it as well.
  const uint64_t base = located.identity.base_vaddr;

  std::vector<SymbolTable::Candidate> candidates;
  add_symbols(located.symbols_path, base, candidates);
  if (!located.binary_path.empty() && located.binary_path != located.symbols_path) {
    add_symbols(located.binary_path, base, candidates);  // .dynsym of a stripped binary
  }
  map->symbols_ = SymbolTable::build(std::move(candidates));

  if (!located.debug_path.empty()) {
    auto dwarf = elf::read_dwarf_data(located.debug_path);
    if (dwarf) {
      std::vector<ScopeIndex::Range> ranges;
      ranges.reserve(dwarf->ranges.size());
      for (const elf::DwarfScopeRange& r : dwarf->ranges) {
        if (r.begin < base) continue;
        const elf::DwarfScope& scope = dwarf->scopes[r.scope];
        ranges.push_back(ScopeIndex::Range{r.begin - base, r.end - base, scope.depth, r.scope});
        if (!scope.inlined) map->root_ranges_.push_back(RootRange{r.begin - base, r.end - base, r.scope});
      }
      std::sort(map->root_ranges_.begin(), map->root_ranges_.end(),
                [](const RootRange& a, const RootRange& b) { return a.begin < b.begin; });
      map->scope_index_ = ScopeIndex::build(std::move(ranges));
      map->lines_ = LineTable::build(std::move(dwarf->lines), base);
      map->scopes_ = std::move(dwarf->scopes);
      map->names_ = std::move(dwarf->names);
      map->files_ = std::move(dwarf->files);
      map->file_set_.insert(map->files_.begin(), map->files_.end());
    } else {
      log::warn("DWARF of " + located.debug_path + ": " + dwarf.error().message);
    }
  }
  // A separate debug file's .eh_frame is NOBITS: only the binary has the function ranges.
  if (!located.binary_path.empty()) {
    if (auto fdes = elf::read_eh_frame_functions(located.binary_path)) {
      for (const elf::FunctionRange& f : fdes->functions) {
        if (f.begin >= base) map->fde_functions_.push_back({f.begin - base, f.end - base});
      }
    } else {
      log::debug(".eh_frame of " + located.binary_path + ": " + fdes.error().message);
    }
  }
  map->demangled_dwarf_names_ = DemangledNames(map->names_.size());
  map->demangled_symbol_names_ = DemangledNames(map->symbols_.name_count());
  if (map->symbols_.size() == 0 && map->scopes_.empty() && map->fde_functions_.empty()) {
    return fail(Errc::kNotFound, "no symbols, DWARF or .eh_frame in " + map->debug_file_);
  }
  return std::shared_ptr<const ModuleSymbolMap>(std::move(map));
}

std::string ModuleSymbolMap::file_name(uint32_t file) const {
  return file < files_.size() ? files_[file] : std::string();
}

std::optional<ModuleSymbolMap::RootRange> ModuleSymbolMap::root_range(uint64_t address,
                                                                      uint32_t scope) const {
  auto it = std::upper_bound(root_ranges_.begin(), root_ranges_.end(), address,
                             [](uint64_t a, const RootRange& r) { return a < r.begin; });
  // Roots rarely overlap (nested GNU C functions); a short backward scan finds ours.
  for (int steps = 0; it != root_ranges_.begin() && steps < 16; ++steps) {
    --it;
    if (it->scope == scope && address < it->end) return *it;
  }
  return std::nullopt;
}

std::optional<SymbolInfo> ModuleSymbolMap::lookup(RelativeAddress relative) const {
  const uint64_t address = relative.value;
  auto symbol = symbols_.find(address);
  const auto innermost = scope_index_.find(address);
  const auto fde = fde_function(address);
  // An unsized symbol is taken to run up to the next symbol; where .eh_frame says another
  // function starts in between, the address is in that (unnamed) function instead.
  if (symbol && symbol->size == 0 && fde && fde->begin > symbol->start) symbol.reset();
  if (!symbol && !innermost && !fde) return std::nullopt;

  SymbolInfo info;
  auto location = lines_.find(address);
  std::string file = location ? file_name(location->file) : std::string();
  uint32_t line = location ? location->line : 0;

  // Walk from the innermost scope outwards; every inlined scope becomes an inline frame whose
  // position is where the next inner one was called (or the line table's, for the innermost).
  std::optional<uint32_t> root;
  for (int32_t s = innermost ? static_cast<int32_t>(*innermost) : -1; s >= 0;
       s = scopes_[static_cast<size_t>(s)].parent) {
    const elf::DwarfScope& scope = scopes_[static_cast<size_t>(s)];
    if (!scope.inlined) {
      root = static_cast<uint32_t>(s);
      break;
    }
    info.inlines.push_back(InlineFrame{
        demangled_dwarf_names_.get(scope.name, names_[scope.name]), std::move(file), line});
    file = file_name(scope.call_file);
    line = scope.call_line;
  }
  info.file = std::move(file);
  info.line = line;

  // The outer function: named from DWARF where it has a scope here (see `outer_name`), else by
  // the symbol. Its extent comes from the symbol table, which the UI groups frames by.
  if (root && !names_[scopes_[*root].name].empty()) {
    info.function = std::string(outer_name(address, *root, symbol));
  } else if (symbol) {
    info.function = demangled_symbol_names_.get(symbol->name_index, symbol->name);
  } else if (fde && !root) {
    info.function = unnamed_function_name(fde->begin);
  } else {
    info.function = "??";
  }
  if (symbol) {
    info.function_start = symbol->start;
    info.function_size = symbol->size;
  } else if (root) {
    if (auto range = root_range(address, *root)) {
      info.function_start = range->begin;
      info.function_size = range->end - range->begin;
    }
  } else if (fde) {
    info.function_start = fde->begin;
    info.function_size = fde->end - fde->begin;
  }
  return info;
}

std::optional<elf::FunctionRange> ModuleSymbolMap::fde_function(uint64_t address) const {
  auto it = std::upper_bound(
      fde_functions_.begin(), fde_functions_.end(), address,
      [](uint64_t a, const elf::FunctionRange& f) { return a < f.begin; });
  if (it == fde_functions_.begin() || address >= (it - 1)->end) return std::nullopt;
  return *(it - 1);
}

std::string ModuleSymbolMap::unnamed_function_name(uint64_t start) const {
  char offset[24];
  std::snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(start));
  return module_name_ + offset;
}

std::string_view ModuleSymbolMap::outer_name(
    uint64_t address, uint32_t root, const std::optional<SymbolTable::Symbol>& symbol) const {
  const uint32_t name = scopes_[root].name;
  const std::string& dwarf_name = demangled_dwarf_names_.get(name, names_[name]);
  if (!symbol) return dwarf_name;
  const std::string& symbol_name = demangled_symbol_names_.get(symbol->name_index, symbol->name);
  // A thunk ("non-virtual thunk to C::~C()") is its own entry point; GCC describes its code as
  // part of the function it adjusts `this` for.
  if (symbol->name.starts_with("_ZTh") || symbol->name.starts_with("_ZTv") ||
      symbol->name.starts_with("_ZTc")) {
    return symbol_name;
  }
  // A mangled linkage name already spells the function fully.
  const std::string& raw = names_[name];
  if (raw.starts_with("_Z") || raw.starts_with("_R")) return dwarf_name;
  // Otherwise DWARF has a C name, an assembler label (glibc's "__GI_feclearexcept") or, for C++
  // functions of internal linkage and members of local classes, an unqualified DW_AT_name
  // ("threads_of", a lambda's "operator()"). The symbol that starts where this part of the
  // function starts names the same code, qualified and by its preferred (exported) alias;
  // GCC's clone suffix is dropped so that a function's .cold part joins the function.
  const auto range = root_range(address, root);
  if (range && range->begin == symbol->start) return without_clone_suffix(symbol_name);
  return dwarf_name;
}

bool ModuleSymbolMap::names_source_file(const std::string& path) const {
  return file_set_.contains(path);
}

}  // namespace sprof::symbolicator::detail
