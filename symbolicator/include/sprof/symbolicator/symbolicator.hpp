// sprof/symbolicator/symbolicator.hpp
//
// Turns (module, relative address) into function names, source lines and inline chains.
// `Symbolicator` finds the debug info for a module identified as the Firefox Profiler names it,
// (debugName, breakpadId), builds a `SymbolMap` for it once and caches it across requests. A map
// reads its symbol tables when built and its DWARF (functions, inline ranges, line tables) a
// unit and a function at a time as lookups reach them, so the first lookups into a unit cost
// more than later ones. Lookups are thread-safe; building maps for different modules may run in
// parallel.
//
// It never crashes or throws on bad files: a module it cannot find or parse is "not found".
//
// With debuginfod servers configured (`SymbolicatorOptions::debuginfod`), a module whose debug
// info (or binary) is not on this machine is downloaded by build-id in the background. What is
// local answers at once: `module` waits at most `DebuginfodOptions::wait` for the download it
// started, then returns a map built from the local files (symbol tables, .eh_frame); once the
// download has finished, the next `module` call for that module builds the full map.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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
  std::string function;         // demangled
  uint64_t function_start = 0;  // relative address of the function's first byte
  uint64_t function_size = 0;   // 0 if unknown
  std::string file;             // of the outer function at this address; empty if unknown
  uint32_t line = 0;
  // Innermost first (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5").
  std::vector<InlineFrame> inlines;
};

class SymbolMap {
 public:
  virtual ~SymbolMap() = default;
  // `address` is relative (SVMA - v0; docs/firefox-profiler-format.md, "Relative addresses").
  virtual std::optional<SymbolInfo> lookup(RelativeAddress address) const = 0;
  // Reads ahead what looking up `addresses` will need, on several threads where the map reads
  // its debug info lazily. Lookups answer the same with or without it; it only moves the cost
  // of the first lookups here, where it can be shared out. Thread-safe.
  virtual void prepare(std::span<const RelativeAddress> addresses) const { (void)addresses; }
  // Whether the module's debug info names `path` as a source file at an address looked up so
  // far (/source/v1's permission check, which looks the address up first).
  virtual bool names_source_file(const std::string& path) const = 0;
  // The file the symbols came from, and the binary (for disassembly).
  virtual const std::string& debug_file() const = 0;
  virtual const std::string& binary_file() const = 0;
  // Whether the map was read from the symbol cache rather than built from the module's files.
  virtual bool from_symbol_cache() const { return false; }
};

// A module whose symbol index the cache lacks, as another process can build it
// (Symbolicator::fill_symbol_cache): the files it is read from.
struct SymbolCacheRequest {
  std::string debug_name;
  std::string breakpad_id;
  std::string binary_path;  // for "[kernel.kallsyms]", the kallsyms file
  std::string debug_path;   // empty without separate debug info

  bool operator==(const SymbolCacheRequest&) const = default;
};

// Where to look for a module's files, learned from the profile's libs. For "[kernel.kallsyms]"
// a hint's path names a saved copy of /proc/kallsyms; for "[vdso]" a dumped vdso image file.
struct ModuleHint {
  // A constructor rather than aggregate initialisation, so that hints written before `code_id`
  // existed ({name, id, path}) still compile without warnings.
  ModuleHint() = default;
  ModuleHint(std::string name, std::string id, std::string file, std::string full_build_id = {})
      : debug_name(std::move(name)),
        breakpad_id(std::move(id)),
        path(std::move(file)),
        code_id(std::move(full_build_id)) {}

  std::string debug_name;
  std::string breakpad_id;
  std::string path;     // the file that was mapped when recording
  std::string code_id;  // the full build-id (hex), if known: lets debuginfod fetch the binary
};

// What happened to one debuginfod download, for the caller to report (the cli prints these).
struct DebuginfodEvent {
  enum class Kind {
    kStarted,   // a download was queued and began
    kProgress,  // about once a second while it runs
    kFetched,   // the file is in the debuginfod cache (`path`)
    kFailed,    // no server had it, none could be reached, or it timed out (`message`)
  };
  Kind kind = Kind::kStarted;
  std::string module;    // the profile's debugName
  std::string build_id;  // lowercase hex
  std::string artifact;  // "debug info" or "executable"
  uint64_t bytes = 0;    // received so far
  uint64_t total = 0;    // 0 while unknown
  std::string url;       // the answering server; empty when the cache had it
  std::string path;      // kFetched: the cached file
  std::string message;   // kFailed: why, naming the servers
  double seconds = 0;    // since kStarted
};

struct DebuginfodOptions {
  std::vector<std::string> urls;     // servers; empty: debuginfod is never contacted
  std::chrono::seconds timeout{90};  // the longest one download may take
  // How long `Symbolicator::module` waits for a download it needs before answering with the
  // local files; the download continues either way. It never waits for a download queued
  // behind another module's, so one request naming many modules waits about this long at most.
  // 1 s covers a cache hit (~0.1 ms) and a loopback or LAN server (a 55 MB debug file took
  // 0.1-0.25 s from a local debuginfod) but not a slow Internet download: the profile shows
  // local names first, and full names on the next request (reload) once it is in.
  std::chrono::milliseconds wait{1000};
  std::function<void(const DebuginfodEvent&)> on_event;  // called on the download thread
};

struct SymbolicatorOptions {
  std::vector<std::string> symbol_dirs;  // --symbol-dir, searched first
  std::vector<ModuleHint> hints;
  std::string kallsyms_path = "/proc/kallsyms";
  // The kernel's build-id, checked against the requested breakpadId of "[kernel.kallsyms]".
  std::string kernel_notes_path = "/sys/kernel/notes";
  // System roots holding .build-id trees and debuglink directories (searched after symbol_dirs).
  std::vector<std::string> debug_roots = {"/usr/lib/debug"};
  DebuginfodOptions debuginfod;
  // Where each module's whole symbol index is kept across runs (--symbol-cache), so that
  // symbolicating the same binaries again reads no DWARF; empty: no cache. A module first seen
  // is answered as without a cache, and read whole and saved beside the answers
  // (wait_for_symbol_cache).
  std::string symbol_cache_dir;
  // Told, when the Symbolicator ends, the modules whose index was not saved yet: saving is cut
  // short rather than delaying the end of a command. The command line passes them to `sprof
  // cache fill` in the background; without this, they are saved by a later run. The cache's
  // directory exists when it is called.
  std::function<void(std::vector<SymbolCacheRequest>)> unsaved_symbol_cache;
  // The most the cache's files may hold together; saving a module's index beyond it removes the
  // least recently used files (each load marks its file used).
  uint64_t symbol_cache_max_bytes = uint64_t{2} << 30;
  // Told every file considered while looking for a module's binary and debug info, and why it
  // was taken or not (sprof -v). Arguments: module, path, verdict. Called from any thread.
  std::function<void(std::string_view, std::string_view, std::string_view)> search_trace;
};

// $XDG_CACHE_HOME/sprof, else ~/.cache/sprof; empty when neither variable is an absolute path.
std::string default_symbol_cache_dir();

// One file of a symbol cache directory, as `sprof cache` lists it.
struct SymbolCacheEntry {
  std::string path;
  std::string key;  // what it holds ("build-id ..."); empty when the file is not an index
  uint64_t bytes = 0;
  int64_t last_used_s = 0;  // Unix time it was last saved or read
};
// The index files in `directory`, least recently used first.
std::vector<SymbolCacheEntry> symbol_cache_entries(const std::string& directory);
// Removes the index files in `directory` (nothing else there); returns how many.
size_t clear_symbol_cache(const std::string& directory);

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

  // Waits until every debuginfod download started so far has finished, at most `timeout`;
  // true if they all have. A caller that wants full names rather than a quick answer (saving a
  // self-contained profile) asks `module` for every module, waits here, then asks again: the
  // second `module` call builds the maps with what was downloaded. Without debuginfod, true.
  bool wait_for_downloads(std::chrono::milliseconds timeout);

  // Waits until every module built so far from its files is saved in the symbol cache. Saving
  // runs on a thread of its own (a module's whole index costs more than the lookups that built
  // its map), and the Symbolicator's destruction cuts it short (unsaved_symbol_cache): this is
  // for a caller that wants the cache filled at a point of its own choosing (tests, sprof cache
  // fill). Without a cache, returns.
  void wait_for_symbol_cache();

  // Builds the module's whole index from the request's files and saves it in the symbol cache,
  // on this thread (sprof cache fill). True when saved, false when the cache had it already.
  Result<bool> fill_symbol_cache(const SymbolCacheRequest& request);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::symbolicator
