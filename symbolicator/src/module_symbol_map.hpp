// module_symbol_map.hpp (private)
//
// The SymbolMap of one ELF module: the symbol tables and .eh_frame function ranges, read when the
// map is built and answered from sorted indexes with binary searches, and the DWARF (scopes,
// inline chains, lines), read a unit and a function at a time as lookups reach them
// (dwarf_lookup.hpp). Lookups may run concurrently.
//
// Code that neither a symbol nor DWARF covers is grouped by the .eh_frame FDE that contains it
// and named "<module>+0x<FDE start>" (relative address), e.g. "cc1plus+0x3f4800".
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "demangled_names.hpp"
#include "dwarf_lookup.hpp"
#include "sprof/core/result.hpp"
#include "sprof/elf/debug_file_locator.hpp"
#include "sprof/elf/eh_frame_functions.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbol_table.hpp"

namespace sprof::symbolicator::detail {

struct ModuleIndexCodec;

class ModuleSymbolMap final : public SymbolMap {
 public:
  // Reads the located files. Fails only when neither symbols, DWARF nor .eh_frame could be read.
  // `module_name` (the profile's debugName) names functions that only .eh_frame knows.
  static Result<std::shared_ptr<const ModuleSymbolMap>> build(const elf::LocatedModule& located,
                                                              std::string module_name);

  std::optional<SymbolInfo> lookup(RelativeAddress relative) const override;
  void prepare(std::span<const RelativeAddress> addresses) const override;
  bool names_source_file(const std::string& path) const override;
  const std::string& debug_file() const override { return debug_file_; }
  const std::string& binary_file() const override { return binary_file_; }

  // Reads all the DWARF that lookups would read lazily: the map is then whole, for the cache.
  // False when `stop` cut it short (DwarfLookup::read_all).
  bool read_all(const std::atomic<bool>& stop) const;
  bool from_symbol_cache() const override { return from_cache_; }
  // For a map from the symbol cache: whether its file held the whole index (else the rest is
  // read from the module's files as lookups need it, and is worth saving).
  bool from_whole_cache_file() const { return from_cache_ && cache_file_whole_; }
  // How many DWARF units and trees this map read from the module's files (dwarf_lookup.hpp).
  size_t read_from_dwarf() const { return dwarf_ ? dwarf_->read_from_dwarf() : 0; }

 private:
  friend struct ModuleIndexCodec;  // module_index_codec.cpp: the symbol cache's file format
  // The name of the outer function that DWARF says holds the address.
  std::string_view outer_name(const DwarfLookup::OuterFunction& root,
                              const std::optional<SymbolTable::Symbol>& symbol) const;
  // The .eh_frame function containing `address`, relative.
  std::optional<elf::FunctionRange> fde_function(uint64_t address) const;
  // "<module>+0x<start>": a function no symbol or DWARF names, by the relative address where
  // its FDE starts, so every address in it gets the same name and function offset.
  std::string unnamed_function_name(uint64_t start) const;

  std::string module_name_;
  std::string debug_file_;
  std::string binary_file_;
  SymbolTable symbols_;
  std::unique_ptr<DwarfLookup> dwarf_;             // null without DWARF
  std::vector<elf::FunctionRange> fde_functions_;  // .eh_frame FDE ranges sorted (relative)
  DemangledNames demangled_symbol_names_;          // by SymbolTable::Symbol::name_index
  bool from_cache_ = false;
  bool cache_file_whole_ = false;  // from_cache_: the file held every unit and tree
};

}  // namespace sprof::symbolicator::detail
