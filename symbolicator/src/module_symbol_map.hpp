// module_symbol_map.hpp (private)
//
// The SymbolMap of one ELF module: built once from what sprof::elf extracts (symbol tables, DWARF
// scopes and line rows), then answered from three sorted indexes with binary searches. Immutable
// after `build`, so concurrent lookups need no locking.
//
// Code that neither a symbol nor DWARF covers is grouped by the .eh_frame FDE that contains it
// and named "<module>+0x<FDE start>" (relative address), e.g. "cc1plus+0x3f4800".
//
// How a lookup composes its answer (contract section 5.3, inlines innermost first):
//   scope chain at A = innermost inlined subroutine ... outermost inlined subroutine, subprogram
//   inlines[0].line  = the line table's line at A
//   inlines[i].line  = call_line of inlines[i-1]'s scope (where it was called from inlines[i])
//   outer line       = call_line of the outermost inlined scope, or the line table's if none.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "demangled_names.hpp"
#include "line_table.hpp"
#include "scope_index.hpp"
#include "sprof/core/result.hpp"
#include "sprof/elf/debug_file_locator.hpp"
#include "sprof/elf/dwarf_data.hpp"
#include "sprof/elf/eh_frame_functions.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbol_table.hpp"

namespace sprof::symbolicator::detail {

class ModuleSymbolMap final : public SymbolMap {
 public:
  // Reads the located files. Fails only when neither symbols, DWARF nor .eh_frame could be read.
  // `module_name` (the profile's debugName) names functions that only .eh_frame knows.
  static Result<std::shared_ptr<const ModuleSymbolMap>> build(const elf::LocatedModule& located,
                                                              std::string module_name);

  std::optional<SymbolInfo> lookup(RelativeAddress address) const override;
  bool names_source_file(const std::string& path) const override;
  const std::string& debug_file() const override { return debug_file_; }
  const std::string& binary_file() const override { return binary_file_; }

 private:
  struct RootRange {
    uint64_t begin;
    uint64_t end;
    uint32_t scope;
  };

  std::string file_name(uint32_t file) const;
  // The name of the outer function at `address`, whose DWARF scope is `root`.
  std::string_view outer_name(uint64_t address, uint32_t root,
                              const std::optional<SymbolTable::Symbol>& symbol) const;
  std::optional<RootRange> root_range(uint64_t address, uint32_t scope) const;
  // The .eh_frame function containing `address`, relative.
  std::optional<elf::FunctionRange> fde_function(uint64_t address) const;
  // "<module>+0x<start>": a function no symbol or DWARF names, by the relative address where
  // its FDE starts, so every address in it gets the same name and function offset.
  std::string unnamed_function_name(uint64_t start) const;

  std::string module_name_;
  std::string debug_file_;
  std::string binary_file_;
  SymbolTable symbols_;
  ScopeIndex scope_index_;
  LineTable lines_;
  std::vector<elf::DwarfScope> scopes_;
  std::vector<std::string> names_;
  std::vector<std::string> files_;
  std::vector<RootRange> root_ranges_;  // subprogram ranges sorted by begin (relative)
  std::vector<elf::FunctionRange> fde_functions_;  // .eh_frame FDE ranges sorted (relative)
  std::unordered_set<std::string> file_set_;
  DemangledNames demangled_dwarf_names_;   // parallel to names_
  DemangledNames demangled_symbol_names_;  // by SymbolTable::Symbol::name_index
};

}  // namespace sprof::symbolicator::detail
