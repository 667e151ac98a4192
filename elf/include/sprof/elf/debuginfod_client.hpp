// sprof/elf/debuginfod_client.hpp
//
// Fetches a module's debug file or executable by build-id from debuginfod servers, through
// elfutils' own client library (libdebuginfod), into the standard debuginfod client cache
// ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client or ~/.cache/debuginfod_client),
// so gdb, perf and other tools share what sprof downloads and the reverse. A cached file is
// returned without contacting a server.
//
// This is the only place sprof contacts debuginfod. libdw's own debuginfod hook lives in libdwfl
// (dwfl_standard_find_debuginfo, dwfl_build_id_find_elf), which sprof does not use, so setting
// DEBUGINFOD_URLS alone never makes sprof download anything: the caller decides (see
// `DebuginfodOptions::urls`).
//
// libdebuginfod 0.188 reads its server list and time limit only from the environment
// (DEBUGINFOD_URLS, DEBUGINFOD_MAXTIME) at each query, so `fetch` sets both to this client's
// options for the duration of the query, under a process-wide lock that also serialises all
// queries of all clients, and restores them afterwards.
//
// Threading: `fetch` blocks (up to the timeout, plus libdebuginfod's retries of refused
// connections) and may be called from any thread; calls are serialised.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::elf {

struct DebuginfodOptions {
  std::vector<std::string> urls;  // servers, tried in parallel by libdebuginfod; empty: off
  // The longest one file may take to download (DEBUGINFOD_MAXTIME; whole seconds, at least 1).
  std::chrono::seconds timeout{90};
};

enum class DebuginfodArtifact { kDebugInfo, kExecutable };

struct DebuginfodProgress {
  uint64_t bytes = 0;  // received so far
  uint64_t total = 0;  // 0 while unknown
  std::string url;     // the server being downloaded from, once one answered
};
using DebuginfodProgressFn = std::function<void(const DebuginfodProgress&)>;

struct DebuginfodFile {
  std::string path;  // in the debuginfod client cache
  std::string url;   // the server that had it; empty when it came from the cache
};

class DebuginfodClient {
 public:
  explicit DebuginfodClient(DebuginfodOptions options) : options_(std::move(options)) {}

  const DebuginfodOptions& options() const { return options_; }

  // The file for `build_id_hex` (the full build-id, lowercase hex). kNotFound when no server
  // has it (a cached "not found" counts: libdebuginfod remembers misses for 10 minutes),
  // kIo when no server could be reached or the download timed out, kInvalidArgument without
  // URLs or with a malformed build-id. `progress` is called about once a second while waiting.
  Result<DebuginfodFile> fetch(std::string_view build_id_hex, DebuginfodArtifact artifact,
                               const DebuginfodProgressFn& progress = {}) const;

 private:
  DebuginfodOptions options_;
};

// $DEBUGINFOD_URLS split at whitespace (the variable's documented format); empty when unset.
std::vector<std::string> debuginfod_urls_from_environment();

const char* artifact_name(DebuginfodArtifact artifact);  // "debug info" / "executable"

}  // namespace sprof::elf
