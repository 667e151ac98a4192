#include "module_symbol_map.hpp"

#include <algorithm>
#include <cstdio>

#include "sprof/core/log.hpp"
#include "sprof/elf/eh_frame_functions.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/elf/plt_stubs.hpp"
#include "sprof/symbolicator/demangle.hpp"
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

// .symtab spells versioned definitions "name@VERSION" / "name@@VERSION" (.symver); the version
// is not part of the function's name.
void drop_symbol_version(std::string& name) {
  if (const size_t at = name.find('@'); at != std::string::npos && at > 0) name.resize(at);
}

void add_symbols(const elf::ElfFile& file, uint64_t base,
                 std::vector<SymbolTable::Candidate>& out) {
  for (elf::ElfSymbol& s : elf::read_symbols(file)) {
    if (s.address < base) continue;
    drop_symbol_version(s.name);
    const uint32_t rank = preference(s);
    out.push_back(SymbolTable::Candidate{s.address - base, s.size, std::move(s.name), rank});
  }
}

// "sqrt@plt" for each stub that calls another module's function (plt_stubs.hpp). Demangled
// here, since "@plt" would stop the demangler later; the lowest rank, as nothing else should be
// at a stub's address.
void add_plt_stubs(const elf::ElfFile& file, uint64_t base,
                   std::vector<SymbolTable::Candidate>& out) {
  for (elf::PltStub& stub : elf::read_plt_stubs(file)) {
    if (stub.address < base) continue;
    drop_symbol_version(stub.symbol);
    out.push_back(
        SymbolTable::Candidate{stub.address - base, stub.size, demangle(stub.symbol) + "@plt", 0});
  }
}

}  // namespace

Result<std::shared_ptr<const ModuleSymbolMap>> ModuleSymbolMap::build(
    const elf::LocatedModule& located, std::string module_name) {
  auto map = std::make_shared<ModuleSymbolMap>();
  map->module_name_ = std::move(module_name);
  map->debug_file_ = located.debug_path.empty() ? located.symbols_path : located.debug_path;
  map->binary_file_ = located.binary_path;
  // Relative addresses are SVMA - v0 (docs/firefox-profiler-format.md, "Relative addresses"). A
  // separate debug file keeps the binary's program headers, so the binary's v0 applies to it as
  // well.
  const uint64_t base = located.identity.base_vaddr;

  // Each file is read as the locator opened it: one open per file, however many readers.
  std::vector<SymbolTable::Candidate> candidates;
  add_symbols(*located.symbols, base, candidates);
  if (located.binary && located.binary != located.symbols) {
    add_symbols(*located.binary, base, candidates);  // .dynsym of a stripped binary
  }
  // A separate debug file's .plt is NOBITS: the stubs are read from the binary.
  add_plt_stubs(located.binary ? *located.binary : *located.symbols, base, candidates);
  map->symbols_ = SymbolTable::build(std::move(candidates));

  if (located.debug) {
    auto dwarf = DwarfLookup::open(located.debug, base);
    if (dwarf && !(*dwarf)->empty()) {
      map->dwarf_ = std::move(*dwarf);
    } else if (!dwarf) {
      log::warn("DWARF of " + located.debug_path + ": " + dwarf.error().message);
    }
  }
  // A separate debug file's .eh_frame is NOBITS: only the binary has the function ranges.
  if (located.binary) {
    if (auto fdes = elf::read_eh_frame_functions(*located.binary)) {
      for (const elf::FunctionRange& f : fdes->functions) {
        if (f.begin >= base) map->fde_functions_.push_back({f.begin - base, f.end - base});
      }
    } else {
      log::debug(".eh_frame of " + located.binary_path + ": " + fdes.error().message);
    }
  }
  map->demangled_symbol_names_ = DemangledNames(map->symbols_.name_count());
  if (map->symbols_.size() == 0 && !map->dwarf_ && map->fde_functions_.empty()) {
    return fail(Errc::kNotFound, "no symbols, DWARF or .eh_frame in " + map->debug_file_);
  }
  return std::shared_ptr<const ModuleSymbolMap>(std::move(map));
}

std::optional<SymbolInfo> ModuleSymbolMap::lookup(RelativeAddress relative) const {
  const uint64_t address = relative.value;
  auto symbol = symbols_.find(address);
  auto dwarf = dwarf_ ? dwarf_->find(address) : std::nullopt;
  const auto fde = fde_function(address);
  // An unsized symbol is taken to run up to the next symbol; where .eh_frame says another
  // function starts in between, the address is in that (unnamed) function instead.
  if (symbol && symbol->size == 0 && fde && fde->begin > symbol->start) symbol.reset();
  const DwarfLookup::OuterFunction* root = dwarf && dwarf->function ? &*dwarf->function : nullptr;
  if (!symbol && !root && !fde) return std::nullopt;

  SymbolInfo info;
  if (dwarf) {
    info.inlines = std::move(dwarf->inlines);
    info.file = std::move(dwarf->file);
    info.line = dwarf->line;
  }
  // The outer function: named from DWARF where it has a scope here (see `outer_name`), else by
  // the symbol. Its extent comes from the symbol table, which the UI groups frames by.
  if (root && !root->name.empty()) {
    info.function = std::string(outer_name(*root, symbol));
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
    if (root->range_end > root->range_begin) {
      info.function_start = root->range_begin;
      info.function_size = root->range_end - root->range_begin;
    }
  } else if (fde) {
    info.function_start = fde->begin;
    info.function_size = fde->end - fde->begin;
  }
  return info;
}

void ModuleSymbolMap::prepare(std::span<const RelativeAddress> addresses) const {
  if (!dwarf_) return;
  std::vector<uint64_t> values;
  values.reserve(addresses.size());
  for (const RelativeAddress a : addresses) values.push_back(a.value);
  dwarf_->prepare(values);
}

bool ModuleSymbolMap::read_all(const std::atomic<bool>& stop) const {
  return !dwarf_ || dwarf_->read_all(stop);
}

std::optional<elf::FunctionRange> ModuleSymbolMap::fde_function(uint64_t address) const {
  auto it = std::upper_bound(fde_functions_.begin(), fde_functions_.end(), address,
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
    const DwarfLookup::OuterFunction& root,
    const std::optional<SymbolTable::Symbol>& symbol) const {
  const std::string& dwarf_name = *root.demangled;
  if (!symbol) return dwarf_name;
  // The symbol's name is demangled only where it is used: kept for the map's life once
  // demangled, it would double the names held for every C++ function looked up.
  const auto symbol_name = [&]() -> const std::string& {
    return demangled_symbol_names_.get(symbol->name_index, symbol->name);
  };
  // A thunk ("non-virtual thunk to C::~C()") is its own entry point; GCC describes its code as
  // part of the function it adjusts `this` for.
  if (symbol->name.starts_with("_ZTh") || symbol->name.starts_with("_ZTv") ||
      symbol->name.starts_with("_ZTc")) {
    return symbol_name();
  }
  // A mangled linkage name already spells the function fully.
  if (root.name.starts_with("_Z") || root.name.starts_with("_R")) return dwarf_name;
  // Otherwise DWARF has a C name, an assembler label (glibc's "__GI_feclearexcept") or, for C++
  // functions of internal linkage and members of local classes, an unqualified DW_AT_name
  // ("threads_of", a lambda's "operator()"). The symbol that starts where this part of the
  // function starts names the same code, qualified and by its preferred (exported) alias;
  // GCC's clone suffix is dropped so that a function's .cold part joins the function.
  if (root.range_end > root.range_begin && root.range_begin == symbol->start) {
    return without_clone_suffix(symbol_name());
  }
  return dwarf_name;
}

bool ModuleSymbolMap::names_source_file(const std::string& path) const {
  return dwarf_ && dwarf_->names_source_file(path);
}

}  // namespace sprof::symbolicator::detail
