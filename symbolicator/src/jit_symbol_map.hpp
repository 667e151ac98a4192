// jit_symbol_map.hpp (private)
//
// The SymbolMap for JIT code, from a perf map (/tmp/perf-<pid>.map) or a jitdump
// (jit-<pid>.dump) — the files the recorder names as the path of the synthetic libs it adds for
// JIT code ranges (debug name = the file's basename). A relative address is AVMA - base, where
// the base comes from the lib's breakpadId (`jit_base_from_breakpad_id`, see
// sprof/core/jit_symbol_file.hpp for why). A jitdump's DEBUG_INFO gives the file and line of
// the outer function (no inline frames: the format has none); perf maps have neither.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "demangled_names.hpp"
#include "sprof/core/jit_symbol_file.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbol_table.hpp"

namespace sprof::symbolicator::detail {

class JitSymbolMap final : public SymbolMap {
 public:
  // True when `debug_name` names a perf map or jitdump (perf-<pid>.map, jit-<pid>.dump).
  static bool handles(const std::string& debug_name);
  // Reads `path` for the lib whose breakpadId carries the base. kNotFound when the file is gone,
  // kMalformed when it holds no symbols or the id no base.
  static Result<std::shared_ptr<const JitSymbolMap>> build(const std::string& path,
                                                           const std::string& breakpad_id);
  static std::shared_ptr<const JitSymbolMap> from_symbols(std::vector<JitSymbol> symbols,
                                                          uint64_t base, std::string path);

  std::optional<SymbolInfo> lookup(RelativeAddress address) const override;
  bool names_source_file(const std::string&) const override { return false; }
  const std::string& debug_file() const override { return path_; }
  const std::string& binary_file() const override { return binary_file_; }

 private:
  SymbolTable symbols_;  // by AVMA
  // Line tables by code start, of the symbol the table keeps for that start (the latest).
  std::unordered_map<uint64_t, std::shared_ptr<const JitLineTable>> lines_;
  uint64_t base_ = 0;
  DemangledNames demangled_names_;
  std::string path_;
  std::string binary_file_;  // none: the code lived in anonymous memory
};

}  // namespace sprof::symbolicator::detail
