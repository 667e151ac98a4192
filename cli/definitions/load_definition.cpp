#include "definitions.hpp"

namespace sprof::cli {

CLI::App* define_load(CLI::App& app, LoadCommandOptions& options) {
  auto* cmd = app.add_subcommand("load", "Serve a saved profile and open it");
  cmd->add_option("profile", options.profile_path, "Profile file (.json or .json.gz)")
      ->required()
      ->type_name("FILE");
  add_serve_options(*cmd, options.serve);
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
