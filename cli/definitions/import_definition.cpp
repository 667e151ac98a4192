// `sprof import`: a perf.data file in, a profile saved, served and opened like `record`'s.
#include "definitions.hpp"

namespace sprof::cli {

CLI::App* define_import(CLI::App& app, ImportCommandOptions& options) {
  auto* cmd = app.add_subcommand(
      "import", "Convert a perf.data file (perf record) into a profile, save it and open it");
  cmd->add_option("perf_data", options.perf_data_path, "The perf.data file")
      ->required()
      ->type_name("FILE");
  cmd->add_option("-o,--output", options.output,
                  "Profile file to write (gzip when it ends in .gz; default profile.json.gz)")
      ->type_name("FILE");
  cmd->add_flag("-s,--save-only", options.save_only, "Save the profile and exit, no server");
  cmd->add_flag_callback(
      "--no-presymbolicate", [&options] { options.presymbolicate = false; },
      "Save without embedded symbols (faster; names then need sprof's server and the binaries)");
  cmd->add_option("--pid", options.pids, "Keep only this process; repeatable")
      ->allow_extra_args(false)
      ->type_name("PID");
  cmd->add_option("--name", options.names,
                  "Keep only processes with this name (command name); repeatable")
      ->allow_extra_args(false)
      ->type_name("NAME");
  add_serve_options(*cmd, options.serve);
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
