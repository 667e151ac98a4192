// sprof/presymbolicate/embedded_symbols.hpp
//
// Serving a self-contained profile on a machine without its binaries: /symbolicate/v5 answers
// from the symbols the file carries. `EmbeddedFallbackModuleSource` asks the live symbolicator
// first, so with the binaries present everything works as for a Gecko file (/source/v1 and
// /asm/v1 included); only a module the symbolicator cannot find (binary deleted, rebuilt, another
// kernel or vdso) falls back to the embedded symbols.
//
// Embedded symbols never grant /source/v1: the file is data from anywhere, and taking its word
// for which source files exist would let whoever wrote it read any file through the server.
// They have no binary either, so /asm/v1 says so.
//
// The file is read for its symbols only when the first module needs them. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "sprof/api/module_source.hpp"
#include "sprof/profile/native_symbols.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::presymbolicate {

// A `SymbolMap` over one module's embedded symbols.
class EmbeddedSymbolMap final : public symbolicator::SymbolMap {
 public:
  EmbeddedSymbolMap(profile::ModuleSymbols symbols, std::string profile_path)
      : symbols_(std::move(symbols)), profile_path_(std::move(profile_path)) {}

  std::optional<symbolicator::SymbolInfo> lookup(RelativeAddress address) const override;
  bool names_source_file(const std::string&) const override { return false; }
  const std::string& debug_file() const override { return profile_path_; }
  const std::string& binary_file() const override { return no_binary_; }

 private:
  profile::ModuleSymbols symbols_;
  std::string profile_path_;
  std::string no_binary_;
};

class EmbeddedFallbackModuleSource final : public api::ModuleSource {
 public:
  // `profile_path`: a self-contained profile (a Gecko one simply has no embedded symbols).
  EmbeddedFallbackModuleSource(symbolicator::Symbolicator& live, std::string profile_path)
      : live_(live), profile_path_(std::move(profile_path)) {}

  Result<std::shared_ptr<const symbolicator::SymbolMap>> module(
      const std::string& debug_name, const std::string& breakpad_id) override;

 private:
  void load_embedded();

  symbolicator::Symbolicator& live_;
  std::string profile_path_;
  std::once_flag loaded_;
  std::string load_error_;  // why the file has no embedded symbols, if it has none
  // (debug name, uppercase breakpad id) -> map
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const EmbeddedSymbolMap>> maps_;
};

}  // namespace sprof::presymbolicate
