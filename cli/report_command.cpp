#include "report_command.hpp"

#include <cstdio>
#include <string>

#include "exit_codes.hpp"
#include "report_input.hpp"
#include "sprof/report/json_report.hpp"
#include "sprof/report/text_report.hpp"
#include "terminal_style.hpp"

namespace sprof::cli {

namespace {

// Trees hide nodes under 0.5% unless asked, as perf report hides call chains under 0.5%: a full
// tree of a real program runs to thousands of lines.
constexpr double kDefaultTreeMinPercent = 0.5;

report::ViewOptions view_options(const ReportCommandOptions& options) {
  report::ViewOptions view;
  view.view = !options.callers.empty() ? report::View::kCallers
              : options.tree           ? report::View::kTree
                                       : report::View::kFunctions;
  view.sort = options.sort == "self" ? report::SortKey::kSelf : report::SortKey::kTotal;
  view.limit = options.limit;
  view.min_percent = options.min_percent.value_or(
      view.view == report::View::kFunctions ? 0.0 : kDefaultTreeMinPercent);
  view.max_depth = options.max_depth;
  view.callers_of = options.callers;
  view.per_thread = options.per_thread;
  return view;
}

}  // namespace

int run_report_command(const ReportCommandOptions& options) {
  auto opened = open_profile(options.selection);
  if (!opened) return report_open_error(options.selection, opened.error());
  const report::ReportProfile& profile = (*opened)->profile;
  const report::ThreadSet& threads = (*opened)->threads;
  const report::ViewOptions view = view_options(options);
  auto sections = report::build_sections(profile, threads, view);
  if (!sections) return report_open_error(options.selection, sections.error());
  const report::ReportSummary summary = report::summarize(profile, threads);
  std::string out;
  if (options.json) {
    out = report::report_json(profile, summary, *sections, view);
  } else {
    const report::TextStyle style = terminal_style(options.width, options.colour);
    out = report::header_text(summary, options.selection.input, style) +
          report::sections_text(profile, *sections, view, style);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace sprof::cli
