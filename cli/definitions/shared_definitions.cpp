// Option groups that several subcommands take.
#include "definitions.hpp"

namespace sprof::cli {

void add_verbosity_options(CLI::App& cmd, Verbosity& verbosity) {
  auto* verbose = cmd.add_flag_callback(
      "-v,--verbose", [&verbosity] { verbosity = Verbosity::kVerbose; },
      "Say where symbols were looked for and found, and what was skipped and why");
  cmd.add_flag_callback(
         "-q,--quiet", [&verbosity] { verbosity = Verbosity::kQuiet; },
         "Print errors only: no status line, notes or summary")
      ->excludes(verbose);
}

void add_symbol_options(CLI::App& cmd, SymbolSources& symbols) {
  cmd.add_option("--symbol-dir", symbols.symbol_dirs,
                 "Extra directory with debug files (by name or .build-id tree); repeatable")
      ->type_name("DIR");
  auto* urls = cmd.add_option("--debuginfod", symbols.debuginfod_urls,
                              "Fetch missing debug info and binaries by build-id from this "
                              "debuginfod server; repeatable (default: $DEBUGINFOD_URLS)")
                   ->type_name("URL");
  cmd.add_flag("--no-debuginfod", symbols.no_debuginfod,
               "Never contact a debuginfod server, even with DEBUGINFOD_URLS set")
      ->excludes(urls);
  auto* cache = cmd.add_option("--symbol-cache", symbols.symbol_cache_dir,
                               "Keep each module's symbol index here, so that symbolicating the "
                               "same binaries again reads no DWARF (default "
                               "$XDG_CACHE_HOME/sprof, else ~/.cache/sprof)")
                    ->type_name("DIR");
  cmd.add_flag("--no-symbol-cache", symbols.no_symbol_cache,
               "Neither read nor write the symbol cache")
      ->excludes(cache);
  cmd.add_option("--debuginfod-timeout", symbols.debuginfod_timeout_s,
                 "Longest time one debuginfod download may take, in seconds (default 90)")
      ->check(CLI::Range(1, 3600))
      ->type_name("SECS");
}

void add_serve_options(CLI::App& cmd, ServeOptions& serve) {
  cmd.add_option("-P,--port", serve.port,
                 "Port for the local server; 'N+' tries N..N+99 (default 3000)")
      ->type_name("PORT");
  cmd.add_option("--address", serve.address, "Address to bind (default 127.0.0.1)")
      ->type_name("ADDR");
  cmd.add_flag("-n,--no-open", serve.no_open, "Print the URL instead of opening a browser");
  add_symbol_options(cmd, serve.symbols);
  cmd.add_option("--profiler-url", serve.profiler_url,
                 "Firefox Profiler to open (default $SPROF_PROFILER_URL or "
                 "https://profiler.firefox.com)")
      ->type_name("URL");
  cmd.add_option("--server-url", serve.server_url,
                 "Origin of sprof's server as the browser reaches it, e.g. "
                 "http://localhost:3000 through ssh -L (default $SPROF_SERVER_URL or the "
                 "address it listens on)")
      ->type_name("URL");
}

}  // namespace sprof::cli
