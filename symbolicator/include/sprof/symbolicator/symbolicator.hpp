// sprof/symbolicator/symbolicator.hpp
//
// Turns (module, relative address) into function names, source lines and inline chains.
// `Symbolicator` finds the debug info for a module identified as the Firefox Profiler names it,
// (debugName, breakpadId), builds a `SymbolMap` for it once (sorted symbols, function and inline
// ranges, line tables) and caches it across requests. Lookups on a built map are cheap and
// thread-safe; building maps for different modules may run in parallel.
//
// It never crashes or throws on bad files: a module it cannot find or parse is "not found".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sprof/core/address.hpp"
#include "sprof/core/result.hpp"

namespace sprof::symbolicator {

struct InlineFrame {
  std::string function;  // demangled
  std::string file;      // empty if unknown
  uint32_t line = 0;     // 0 if unknown
};

struct SymbolInfo {
  std::string function;            // demangled
  uint64_t function_start = 0;     // relative address of the function's first byte
  uint64_t function_size = 0;      // 0 if unknown
  std::string file;                // of the outer function at this address; empty if unknown
  uint32_t line = 0;
  std::vector<InlineFrame> inlines;  // innermost first (contract section 5.3)
};

class SymbolMap {
 public:
  virtual ~SymbolMap() = default;
  // `address` is relative (SVMA - v0; contract section 3.3).
  virtual std::optional<SymbolInfo> lookup(RelativeAddress address) const = 0;
  // Source files this module's debug info names (for /source/v1's permission check).
  virtual bool names_source_file(const std::string& path) const = 0;
  // The file the symbols came from, and the binary (for disassembly).
  virtual const std::string& debug_file() const = 0;
  virtual const std::string& binary_file() const = 0;
};

// Where to look for a module's files, learned from the profile's libs. For "[kernel.kallsyms]"
// a hint's path names a saved copy of /proc/kallsyms; for "[vdso]" a dumped vdso image file.
struct ModuleHint {
  std::string debug_name;
  std::string breakpad_id;
  std::string path;  // the file that was mapped when recording
};

struct SymbolicatorOptions {
  std::vector<std::string> symbol_dirs;  // --symbol-dir, searched first
  std::vector<ModuleHint> hints;
  std::string kallsyms_path = "/proc/kallsyms";
  // The kernel's build-id, checked against the requested breakpadId of "[kernel.kallsyms]".
  std::string kernel_notes_path = "/sys/kernel/notes";
  // System roots holding .build-id trees and debuglink directories (searched after symbol_dirs).
  std::vector<std::string> debug_roots = {"/usr/lib/debug"};
};

class Symbolicator {
 public:
  explicit Symbolicator(SymbolicatorOptions options);
  ~Symbolicator();
  Symbolicator(const Symbolicator&) = delete;
  Symbolicator& operator=(const Symbolicator&) = delete;

  void add_hint(ModuleHint hint);
  // The symbol map for a module, built on first use and cached. kNotFound when no matching file
  // (by build id) exists. Thread-safe.
  Result<std::shared_ptr<const SymbolMap>> module(const std::string& debug_name,
                                                  const std::string& breakpad_id);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::symbolicator
