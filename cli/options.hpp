// cli/options.hpp: parsed command-line options of `sprof record`, `sprof load` and
// `sprof symbolicate`.
#pragma once

#include <string>
#include <vector>

#include "sprof/recorder/options.hpp"

namespace sprof::cli {

// Where symbols come from besides the profile's own libs: every command that builds a
// symbolicator takes these.
struct SymbolSources {
  std::vector<std::string> symbol_dirs;
  std::vector<std::string> debuginfod_urls;  // --debuginfod; empty: $DEBUGINFOD_URLS
  bool no_debuginfod = false;
  int debuginfod_timeout_s = 90;
};

struct ServeOptions {
  std::string address = "127.0.0.1";
  std::string port = "3000";  // "N", or "N+" to try N..N+99
  bool no_open = false;
  SymbolSources symbols;
  std::string profiler_url;  // empty: $SPROF_PROFILER_URL, else https://profiler.firefox.com
};

struct RecordCommandOptions {
  recorder::RecordOptions record;
  std::string output = "profile.json.gz";
  bool save_only = false;
  // Embed symbols so the file opens anywhere (--no-presymbolicate turns it off).
  bool presymbolicate = true;
  ServeOptions serve;
};

struct SymbolicateCommandOptions {
  std::string input;
  std::string output;  // empty: replace `input`
  SymbolSources symbols;
};

struct LoadCommandOptions {
  std::string profile_path;
  ServeOptions serve;
};

}  // namespace sprof::cli
