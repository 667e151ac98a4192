// sprof: command-line entry point. Parses arguments and dispatches; nothing else. The options
// themselves are defined in cli/definitions/, one file per subcommand.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cache_command.hpp"
#include "compare_command.hpp"
#include "console.hpp"
#include "definitions/command_tail.hpp"
#include "definitions/definitions.hpp"
#include "diff_command.hpp"
#include "exit_codes.hpp"
#include "export_command.hpp"
#include "flamegraph_command.hpp"
#include "import_command.hpp"
#include "load_command.hpp"
#include "record_command.hpp"
#include "report_command.hpp"
#include "stat_command.hpp"
#include "symbolicate_command.hpp"

int main(int argc, char** argv) {
  using namespace sprof::cli;
  Commands commands;
  const SprofApp sprof = make_sprof_app(commands);

  const std::vector<std::string> args = arguments_for_parser(
      std::vector<std::string>(argv, argv + argc), *sprof.app, sprof.command_runners);
  std::vector<const char*> parser_argv;
  parser_argv.reserve(args.size());
  for (const auto& a : args) parser_argv.push_back(a.c_str());
  try {
    sprof.app->parse(static_cast<int>(parser_argv.size()), parser_argv.data());
  } catch (const CLI::ParseError& e) {
    const int code = sprof.app->exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  if (sprof.record->parsed()) {
    set_verbosity(commands.record.verbosity);
    return run_record_command(commands.record);
  }
  if (sprof.import->parsed()) {
    set_verbosity(commands.import.verbosity);
    return run_import_command(commands.import);
  }
  if (sprof.stat->parsed()) {
    set_verbosity(commands.stat.verbosity);
    return run_stat_command(commands.stat);
  }
  if (sprof.symbolicate->parsed()) {
    set_verbosity(commands.symbolicate.verbosity);
    return run_symbolicate_command(commands.symbolicate);
  }
  if (sprof.report->parsed()) {
    set_verbosity(commands.report.verbosity);
    return run_report_command(commands.report);
  }
  if (sprof.export_->parsed()) {
    set_verbosity(commands.export_.verbosity);
    return run_export_command(commands.export_);
  }
  if (sprof.flamegraph->parsed()) {
    set_verbosity(commands.flamegraph.verbosity);
    return run_flamegraph_command(commands.flamegraph);
  }
  if (sprof.diff->parsed()) {
    set_verbosity(commands.diff.verbosity);
    return run_diff_command(commands.diff);
  }
  if (sprof.cache->parsed()) {
    commands.cache.modules = sprof.cache->remaining();
    set_verbosity(commands.cache.verbosity);
    return run_cache_command(commands.cache);
  }
  if (sprof.compare->parsed()) {
    set_verbosity(commands.compare.verbosity);
    return run_compare_command(commands.compare);
  }
  set_verbosity(commands.load.verbosity);
  return run_load_command(commands.load);
}
