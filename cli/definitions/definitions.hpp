// cli/definitions/definitions.hpp
//
// sprof's command line, defined once: each subcommand's options are declared in its own file
// here and nowhere else. `--help`, the man page and the shell completions (cli/docgen) are all
// generated from these definitions, so they cannot drift apart.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>

#include "options.hpp"
#include "report_options.hpp"

namespace sprof::cli {

// Everything the command line can fill, one member per subcommand.
struct Commands {
  RecordCommandOptions record;
  LoadCommandOptions load;
  ImportCommandOptions import;
  SymbolicateCommandOptions symbolicate;
  StatCommandOptions stat;
  ReportCommandOptions report;
  ExportCommandOptions export_;
  FlameGraphCommandOptions flamegraph;
  DiffCommandOptions diff;
  CompareCommandOptions compare;
  CacheCommandOptions cache;
};

struct SprofApp {
  std::unique_ptr<CLI::App> app;
  CLI::App* record = nullptr;
  CLI::App* load = nullptr;
  CLI::App* import = nullptr;
  CLI::App* symbolicate = nullptr;
  CLI::App* stat = nullptr;
  CLI::App* report = nullptr;
  CLI::App* export_ = nullptr;
  CLI::App* flamegraph = nullptr;
  CLI::App* diff = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* cache = nullptr;
  // Subcommands that run a command given as their trailing arguments (`sprof record ls -la`):
  // their arguments are split at the command before CLI11 sees them (command_tail.hpp).
  std::vector<const CLI::App*> command_runners;
};

// The whole command line, writing into `into` (which must outlive the app).
SprofApp make_sprof_app(Commands& into);
// "sprof 0.1.0", as --version prints it.
std::string version_text();
// "0.1.0": the project's version (CMakeLists.txt), as the served page shows it.
std::string version_number();

// One function per subcommand (record_definition.cpp, ...): adds it to `app`.
CLI::App* define_record(CLI::App& app, RecordCommandOptions& options);
CLI::App* define_load(CLI::App& app, LoadCommandOptions& options);
CLI::App* define_import(CLI::App& app, ImportCommandOptions& options);
CLI::App* define_symbolicate(CLI::App& app, SymbolicateCommandOptions& options);
CLI::App* define_stat(CLI::App& app, StatCommandOptions& options);
CLI::App* define_report(CLI::App& app, ReportCommandOptions& options);
CLI::App* define_export(CLI::App& app, ExportCommandOptions& options);
CLI::App* define_flamegraph(CLI::App& app, FlameGraphCommandOptions& options);
CLI::App* define_diff(CLI::App& app, DiffCommandOptions& options);
CLI::App* define_compare(CLI::App& app, CompareCommandOptions& options);
CLI::App* define_cache(CLI::App& app, CacheCommandOptions& options);

// Option groups several subcommands share (shared_definitions.cpp).
void add_verbosity_options(CLI::App& cmd, Verbosity& verbosity);
void add_symbol_options(CLI::App& cmd, SymbolSources& symbols);
void add_serve_options(CLI::App& cmd, ServeOptions& serve);
// The profile, --process, --thread and symbol sources (report_definition.cpp).
void add_profile_selection_options(CLI::App& cmd, ProfileSelection& selection);
// The same without the profile, for commands that read more than one.
void add_thread_selection_options(CLI::App& cmd, ProfileSelection& selection);
// --heap allocated|retained of the commands that draw or export stacks (flamegraph, export).
void add_heap_view_option(CLI::App& cmd, HeapView& heap);
// --width and --color of the commands that print tables (report, diff).
void add_terminal_options(CLI::App& cmd, size_t& width, ColourChoice& colour);

}  // namespace sprof::cli
