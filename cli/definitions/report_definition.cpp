#include "definitions.hpp"

namespace sprof::cli {

void add_profile_selection_options(CLI::App& cmd, ProfileSelection& selection) {
  cmd.add_option("profile", selection.input,
                 "Profile file (.json, .json.gz, or perf.data: imported)")
      ->required()
      ->type_name("FILE");
  add_thread_selection_options(cmd, selection);
}

void add_thread_selection_options(CLI::App& cmd, ProfileSelection& selection) {
  cmd.add_option("--process", selection.process, "Only this process (pid or name)")
      ->type_name("PID|NAME");
  cmd.add_option("--thread", selection.thread, "Only this thread (name or tid)")
      ->type_name("NAME|TID");
  cmd.add_flag("--include-idle", selection.include_idle,
               "Count the samples of threads off the CPU (Idle category) too");
  add_symbol_options(cmd, selection.symbols);
}

void add_heap_view_option(CLI::App& cmd, HeapView& heap) {
  cmd.add_option("--heap", heap,
                 "Weigh stacks by memory (a --heap recording): allocated (bytes allocated) or "
                 "retained (bytes not freed by the end)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, HeapView>{{"allocated", HeapView::kAllocated},
                                          {"retained", HeapView::kRetained}},
          CLI::ignore_case))
      ->type_name("allocated|retained");
}

void add_terminal_options(CLI::App& cmd, size_t& width, ColourChoice& colour) {
  cmd.add_option("--width", width,
                 "Fit lines in N columns (default: the terminal's, else $COLUMNS, else 80)")
      ->check(CLI::Range(40, 1000))
      ->type_name("N");
  cmd.add_option("--color", colour, "Colours: auto (on a terminal), always, never")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, ColourChoice>{{"auto", ColourChoice::kAuto},
                                              {"always", ColourChoice::kAlways},
                                              {"never", ColourChoice::kNever}},
          CLI::ignore_case))
      ->type_name("WHEN");
}

CLI::App* define_report(CLI::App& app, ReportCommandOptions& options) {
  auto* cmd = app.add_subcommand(
      "report", "Print a profile's hottest functions or call tree on the terminal (or as JSON)");
  add_profile_selection_options(*cmd, options.selection);
  auto* tree = cmd->add_flag("--tree", options.tree, "Print the call tree, top-down");
  auto* heap =
      cmd->add_flag("--heap", options.heap,
                    "Print allocation sites (a `record --heap` profile): bytes, calls, temporary, "
                    "live at the peak, leaked, lifetimes; and the size histogram")
          ->excludes(tree);
  cmd->add_option("--callers", options.callers,
                  "Print who calls FUNC (bottom-up), with each caller's share")
      ->type_name("FUNC")
      ->excludes(tree)
      ->excludes(heap);
  cmd->add_option("--sort", options.sort, "Order functions by total or self weight (default total)")
      ->check(CLI::IsMember({"total", "self"}))
      ->type_name("self|total");
  cmd->add_option("--limit", options.limit, "List at most N functions (default: all)")
      ->type_name("N");
  cmd->add_option("--min-percent", options.min_percent,
                  "Leave out functions and tree nodes under this share "
                  "(default: 0 for the list, 0.5 for trees)")
      ->check(CLI::Range(0.0, 100.0))
      ->type_name("PCT");
  cmd->add_option("--max-depth", options.max_depth, "Print trees at most N levels deep")
      ->type_name("N");
  cmd->add_flag("--per-thread", options.per_thread, "One report per thread instead of merged");
  cmd->add_flag("--json", options.json, "Print JSON for scripts (a stable shape)");
  add_terminal_options(*cmd, options.width, options.colour);
  add_verbosity_options(*cmd, options.verbosity);
  return cmd;
}

}  // namespace sprof::cli
