// kernel_symbol_map.hpp (private)
//
// The SymbolMap for "[kernel.kallsyms]": core-kernel text symbols from /proc/kallsyms (module
// symbols are left out), addressed relative to `_text` rounded down to 4096, the lib start the
// recorder writes (docs/firefox-profiler-format.md, "Kernel frames"). kallsyms has no sizes, so
// each symbol extends to the next one (the last to `_etext`); nothing at or past `_etext` resolves.
// No files or lines.
#pragma once

#include <memory>
#include <string>

#include "demangled_names.hpp"
#include "sprof/elf/kernel_image.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbol_table.hpp"

namespace sprof::symbolicator::detail {

struct ModuleIndexCodec;

class KernelSymbolMap final : public SymbolMap {
 public:
  static Result<std::shared_ptr<const KernelSymbolMap>> build(const elf::KernelSymbols& symbols,
                                                              const elf::KernelImage& image,
                                                              std::string source_path);

  std::optional<SymbolInfo> lookup(RelativeAddress address) const override;
  bool names_source_file(const std::string&) const override { return false; }
  const std::string& debug_file() const override { return source_path_; }
  const std::string& binary_file() const override { return binary_file_; }
  bool from_symbol_cache() const override { return from_cache_; }

 private:
  friend struct ModuleIndexCodec;  // module_index_codec.cpp: the symbol cache's file format
  SymbolTable symbols_;
  DemangledNames demangled_names_;
  std::string source_path_;
  std::string binary_file_;  // none: kernel text is not disassembled from a file
  bool from_cache_ = false;
};

}  // namespace sprof::symbolicator::detail
