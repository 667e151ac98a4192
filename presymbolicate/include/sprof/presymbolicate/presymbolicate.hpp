// sprof/presymbolicate/presymbolicate.hpp
//
// The pass that makes a profile self-contained: it asks the symbolicator about every native
// address the profile's frames use (`profile::native_addresses`) and collects the answers as
// `profile::ProfileSymbols` for the self-contained writer (profile/processed_writer.hpp). It joins
// two layers that know nothing of each other, profile/ and symbolicator/, so it lives above both.
//
// Modules are symbolicated in parallel: building a module's symbol map (finding and indexing its
// debug info) is the expensive part, lookups on a built map are cheap. The symbolicator may
// answer the HTTP server at the same time; it is thread-safe and keeps the maps it builds, so
// the server and this pass build each map once between them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::presymbolicate {

struct ModuleOutcome {
  profile::ModuleKey module;
  uint64_t addresses = 0;
  uint64_t named = 0;     // addresses with a function name
  std::string error;      // why the module has no symbols; empty when it was found
  double elapsed_ms = 0;  // finding and indexing its debug info (unless already built) + lookups
  bool from_symbol_cache = false;  // its index was read from the symbol cache
};

struct PresymbolicationReport {
  std::vector<ModuleOutcome> modules;  // in the order of `profile::native_addresses`
  uint64_t addresses = 0;
  uint64_t named = 0;
  double elapsed_ms = 0;

  std::vector<const ModuleOutcome*> missing() const;
  size_t from_symbol_cache() const;
};

struct Presymbolication {
  profile::ProfileSymbols symbols;
  PresymbolicationReport report;
};

// `threads` 0 uses one thread per CPU.
Presymbolication presymbolicate(const profile::Profile& profile,
                                symbolicator::Symbolicator& symbolicator, unsigned threads = 0);

// Where each module's files were when the profile was recorded (the path and debug path of
// every lib), for `SymbolicatorOptions::hints`.
std::vector<symbolicator::ModuleHint> module_hints(const profile::Profile& profile);

struct SaveReport {
  uint64_t bytes = 0;  // size of the written file
  PresymbolicationReport symbols;
  double write_ms = 0;
};

// Presymbolicates `profile` and writes the self-contained file to a temporary file beside `path`
// that then replaces `path` (rename(2) in one directory): a reader of `path`, such as the HTTP
// server, sees the old file or the new one, never a partial one. On failure `path` is untouched.
Result<SaveReport> save_self_contained(const profile::Profile& profile,
                                       symbolicator::Symbolicator& symbolicator,
                                       const std::string& path);

}  // namespace sprof::presymbolicate
