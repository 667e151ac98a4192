// jit_symbol_map.hpp (private)
//
// The SymbolMap for JIT code, from a perf map (/tmp/perf-<pid>.map) or a jitdump
// (jit-<pid>.dump) — the files the recorder names as the path of the synthetic libs it adds for
// JIT code ranges (debug name = the file's basename). The recorder gives those libs an offset
// equal to their start, so a relative address is the AVMA itself and symbols are looked up at the
// addresses the files list. No source files or lines.
#pragma once

#include <memory>
#include <string>

#include "demangled_names.hpp"
#include "sprof/core/jit_symbol_file.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbol_table.hpp"

namespace sprof::symbolicator::detail {

class JitSymbolMap final : public SymbolMap {
 public:
  // True when `debug_name` names a perf map or jitdump (perf-<pid>.map, jit-<pid>.dump).
  static bool handles(const std::string& debug_name);
  // Reads `path`. kNotFound when it is gone, kMalformed when it holds no symbols.
  static Result<std::shared_ptr<const JitSymbolMap>> build(const std::string& path);
  static std::shared_ptr<const JitSymbolMap> from_symbols(std::vector<JitSymbol> symbols,
                                                          std::string path);

  std::optional<SymbolInfo> lookup(RelativeAddress address) const override;
  bool names_source_file(const std::string&) const override { return false; }
  const std::string& debug_file() const override { return path_; }
  const std::string& binary_file() const override { return binary_file_; }

 private:
  SymbolTable symbols_;
  DemangledNames demangled_names_;
  std::string path_;
  std::string binary_file_;  // none: the code lived in anonymous memory
};

}  // namespace sprof::symbolicator::detail
