#include "definitions.hpp"

namespace sprof::cli {

CLI::App* define_diff(CLI::App& app, DiffCommandOptions& options) {
  auto* cmd = app.add_subcommand(
      "diff", "Compare two profiles function by function, or draw a differential flame graph");
  cmd->add_option("base", options.base.input, "The profile before (.json, .json.gz or perf.data)")
      ->required()
      ->type_name("BASE");
  cmd->add_option("new", options.next_input, "The profile after, compared with BASE")
      ->required()
      ->type_name("NEW");
  add_thread_selection_options(*cmd, options.base);
  cmd->add_option("--limit", options.limit, "List at most N functions (default: all)")
      ->type_name("N");
  cmd->add_flag("--json", options.json, "Print JSON for scripts (a stable shape)");
  cmd->add_option("--fail-above", options.fail_above,
                  "Exit with 4 when a function's total share grew by more than PCT points")
      ->check(CLI::Range(0.0, 100.0))
      ->type_name("PCT");
  cmd->add_option("-o,--output", options.output,
                  "Also write NEW's flame graph coloured by change (red grew, blue shrank) as SVG")
      ->type_name("FILE");
  add_terminal_options(*cmd, options.width, options.colour);
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
