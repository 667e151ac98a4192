// cli/options.hpp: parsed command-line options of `sprof record` and `sprof load`.
#pragma once

#include <string>
#include <vector>

#include "sprof/recorder/options.hpp"

namespace sprof::cli {

struct ServeOptions {
  std::string address = "127.0.0.1";
  std::string port = "3000";  // "N", or "N+" to try N..N+99
  bool no_open = false;
  std::vector<std::string> symbol_dirs;
  std::vector<std::string> debuginfod_urls;  // --debuginfod; empty: $DEBUGINFOD_URLS
  bool no_debuginfod = false;
  int debuginfod_timeout_s = 90;
  std::string profiler_url;  // empty: $SPROF_PROFILER_URL, else https://profiler.firefox.com
};

struct RecordCommandOptions {
  recorder::RecordOptions record;
  std::string output = "profile.json.gz";
  bool save_only = false;
  ServeOptions serve;
};

struct LoadCommandOptions {
  std::string profile_path;
  ServeOptions serve;
};

}  // namespace sprof::cli
