#include "definitions.hpp"

namespace sprof::cli {

CLI::App* define_flamegraph(CLI::App& app, FlameGraphCommandOptions& options) {
  auto* cmd = app.add_subcommand(
      "flamegraph",
      "Draw a profile as an interactive flame graph: one SVG file that works offline");
  add_profile_selection_options(*cmd, options.selection);
  cmd->add_option("-o,--output", options.output, "SVG file to write (default: standard output)")
      ->type_name("FILE");
  cmd->add_flag("--inverted", options.inverted, "Draw an icicle graph: the root at the top");
  cmd->add_option("--title", options.title, "Title (default: Flame Graph, or Icicle Graph)")
      ->type_name("TEXT");
  cmd->add_option("--width", options.width_px, "Image width in pixels (default 1200)")
      ->check(CLI::Range(200.0, 100000.0))
      ->type_name("PX");
  cmd->add_option("--min-width", options.min_width_px,
                  "Leave out frames narrower than this, in pixels (default 0.1)")
      ->check(CLI::Range(0.0, 1000.0))
      ->type_name("PX");
  add_heap_view_option(*cmd, options.heap);
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
