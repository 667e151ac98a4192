#include "definitions.hpp"

namespace sprof::cli {

CLI::App* define_export(CLI::App& app, ExportCommandOptions& options) {
  auto* cmd = app.add_subcommand(
      "export",
      "Write a profile's stacks for other tools: folded (FlameGraph, inferno, Pyroscope)");
  add_profile_selection_options(*cmd, options.selection);
  cmd->add_option("-f,--format", options.format,
                  "folded: collapsed stacks, one line each; pprof: gzip'd profile.proto (needs -o)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, ExportFormat>{{"folded", ExportFormat::kFolded},
                                              {"pprof", ExportFormat::kPprof}},
          CLI::ignore_case))
      ->required()
      ->type_name("FORMAT");
  cmd->add_option("-o,--output", options.output, "File to write (default: standard output)")
      ->type_name("FILE");
  cmd->add_flag("--thread-prefix", options.thread_prefix,
                "Start each stack with a frame naming its process and thread");
  add_heap_view_option(*cmd, options.heap);
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
