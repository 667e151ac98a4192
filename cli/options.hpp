// cli/options.hpp: parsed command-line options of `sprof record`, `sprof load`,
// `sprof import`, `sprof symbolicate` and `sprof stat` (filled by the definitions in
// cli/definitions/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/recorder/counting.hpp"
#include "sprof/recorder/options.hpp"

namespace sprof::cli {

// How much sprof says on stderr besides errors: -q keeps only errors, -v adds where symbols were
// looked for and what was skipped.
enum class Verbosity { kQuiet, kNormal, kVerbose };

// Where symbols come from besides the profile's own libs: every command that builds a
// symbolicator takes these.
struct SymbolSources {
  std::vector<std::string> symbol_dirs;
  std::vector<std::string> debuginfod_urls;  // --debuginfod; empty: $DEBUGINFOD_URLS
  bool no_debuginfod = false;
  int debuginfod_timeout_s = 90;
  std::string symbol_cache_dir;  // --symbol-cache; empty: default_symbol_cache_dir()
  bool no_symbol_cache = false;
};

struct ServeOptions {
  std::string address = "127.0.0.1";
  std::string port = "3000";  // "N", or "N+" to try N..N+99
  bool no_open = false;
  SymbolSources symbols;
  std::string profiler_url;  // empty: $SPROF_PROFILER_URL, else https://profiler.firefox.com
  // The origin the printed URL names for sprof's server (ssh -L forwarding); empty:
  // $SPROF_SERVER_URL, else the address the server listens on.
  std::string server_url;
};

struct RecordCommandOptions {
  recorder::RecordOptions record;
  std::string output = "profile.json.gz";
  bool save_only = false;
  // Embed symbols so the file opens anywhere (--no-presymbolicate turns it off).
  bool presymbolicate = true;
  // --rotate: one profile per interval into `output_dir` (rotating_output.hpp); 0: off.
  double rotate_s = 0;
  // --flight-recorder: keep only the last window; SIGUSR2 and the end of the recording write it
  // (docs/flight-recorder.md) through the same output as --rotate; 0: off.
  double flight_recorder_s = 0;
  // --rotate and --flight-recorder write their files here, named sprof-<UTC start>-<seq>.json.gz.
  // A flight recording without it writes beside -o instead, named after it:
  // <dir of -o>/<-o less .json.gz>-<UTC start>-<seq>.json.gz.
  std::string output_dir;
  int max_files = 0;  // 0: keep every file
  ServeOptions serve;
  Verbosity verbosity = Verbosity::kNormal;
};

// `sprof cache [show|clear|fill]`: the symbol cache.
struct CacheCommandOptions {
  std::string action = "show";
  std::string directory;                 // --symbol-cache; empty: default_symbol_cache_dir()
  std::vector<std::string> symbol_dirs;  // --symbol-dir, where fill looks for debug files
  // fill: NAME BREAKPAD-ID BINARY DEBUG for each module ("-" for a path it has none of), as
  // sprof passes them when a command ends before the cache has its modules.
  std::vector<std::string> modules;
  Verbosity verbosity = Verbosity::kNormal;
};

struct SymbolicateCommandOptions {
  std::string input;
  std::string output;  // empty: replace `input`
  SymbolSources symbols;
  Verbosity verbosity = Verbosity::kNormal;
};

struct ImportCommandOptions {
  std::string perf_data_path;
  std::string output = "profile.json.gz";
  bool save_only = false;
  bool presymbolicate = true;
  std::vector<uint32_t> pids;      // --pid: keep only these processes
  std::vector<std::string> names;  // --name
  ServeOptions serve;
  Verbosity verbosity = Verbosity::kNormal;
};

struct StatCommandOptions {
  recorder::CountOptions count;
  int repeat = 1;  // -r: run the command this many times; report mean and spread
  bool json = false;
  std::string output;  // empty: stderr, as perf stat
  Verbosity verbosity = Verbosity::kNormal;
};

struct LoadCommandOptions {
  std::string profile_path;
  ServeOptions serve;
  Verbosity verbosity = Verbosity::kNormal;
};

}  // namespace sprof::cli
