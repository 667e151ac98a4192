#include "definitions.hpp"

namespace sprof::cli {

CLI::App* define_compare(CLI::App& app, CompareCommandOptions& options) {
  auto* cmd = app.add_subcommand(
      "compare",
      "Serve two profiles and open them side by side in the Firefox Profiler's compare view");
  cmd->add_option("base", options.base, "The profile before (.json, .json.gz or perf.data)")
      ->required()
      ->type_name("BASE");
  cmd->add_option("new", options.next, "The profile after")->required()->type_name("NEW");
  cmd->add_option("--process", options.process, "Only this process (pid or name), in both")
      ->type_name("PID|NAME");
  cmd->add_option("--thread", options.thread,
                  "This thread (name or tid) of each profile (default: the busiest of each)")
      ->type_name("NAME|TID");
  add_serve_options(*cmd, options.serve);
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
