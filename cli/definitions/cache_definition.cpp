#include "definitions.hpp"

namespace sprof::cli {

CLI::App* define_cache(CLI::App& app, CacheCommandOptions& options) {
  auto* cmd = app.add_subcommand(
      "cache", "Show or clear the symbol cache (each module's symbol index, kept by build-id)");
  cmd->add_option("action", options.action,
                  "show: list the cached modules (default); clear: remove them; fill NAME "
                  "BREAKPAD-ID BINARY DEBUG-FILE...: index these modules now ('-' for a file a "
                  "module has none of; sprof runs this in the background when a command ends "
                  "before their index is saved)")
      ->check(CLI::IsMember({"show", "clear", "fill"}))
      ->type_name("ACTION");
  // fill's modules: NAME BREAKPAD-ID BINARY DEBUG-FILE each. Taken as they are (main.cpp reads
  // them from remaining()), since an option would split "[kernel.kallsyms]" as a CLI11 list.
  cmd->allow_extras();
  cmd->add_option("--symbol-cache", options.directory,
                  "The cache's directory (default $XDG_CACHE_HOME/sprof, else ~/.cache/sprof)")
      ->type_name("DIR");
  cmd->add_option("--symbol-dir", options.symbol_dirs,
                  "For fill: extra directory with debug files (by name or .build-id tree); "
                  "repeatable")
      ->type_name("DIR");
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
