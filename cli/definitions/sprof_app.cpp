#include "definitions.hpp"
#include "help_formatter.hpp"

#ifndef SPROF_VERSION
#error "SPROF_VERSION comes from the build (the project version)"
#endif

namespace sprof::cli {

std::string version_text() { return "sprof " SPROF_VERSION; }
std::string version_number() { return SPROF_VERSION; }

SprofApp make_sprof_app(Commands& into) {
  SprofApp sprof;
  sprof.app = std::make_unique<CLI::App>(
      "sprof: a sampling profiler for Linux that opens its profiles in the Firefox Profiler",
      "sprof");
  CLI::App& app = *sprof.app;
  app.formatter(std::make_shared<HelpFormatter>());  // before the subcommands, which inherit it
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text());
  sprof.record = define_record(app, into.record);
  sprof.load = define_load(app, into.load);
  sprof.import = define_import(app, into.import);
  sprof.symbolicate = define_symbolicate(app, into.symbolicate);
  sprof.stat = define_stat(app, into.stat);
  sprof.report = define_report(app, into.report);
  sprof.export_ = define_export(app, into.export_);
  sprof.flamegraph = define_flamegraph(app, into.flamegraph);
  sprof.diff = define_diff(app, into.diff);
  sprof.compare = define_compare(app, into.compare);
  sprof.cache = define_cache(app, into.cache);
  sprof.command_runners = {sprof.record, sprof.stat};
  return sprof;
}

}  // namespace sprof::cli
