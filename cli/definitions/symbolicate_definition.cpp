#include "definitions.hpp"

namespace sprof::cli {

CLI::App* define_symbolicate(CLI::App& app, SymbolicateCommandOptions& options) {
  auto* cmd = app.add_subcommand(
      "symbolicate", "Embed symbols in a saved profile so it opens anywhere without sprof");
  cmd->add_option("profile", options.input, "Profile file (.json or .json.gz)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("-o,--output", options.output,
                  "File to write (gzip when it ends in .gz; default: replace the input)")
      ->type_name("FILE");
  add_symbol_options(*cmd, options.symbols);
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
