#include "report_command.hpp"

#include <cstdio>
#include <string>

#include "exit_codes.hpp"
#include "report_input.hpp"
#include "sprof/report/heap_report_json.hpp"
#include "sprof/report/heap_report_text.hpp"
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

// `--heap`: the allocation sites of the selected threads (heap_report.hpp).
int run_heap_report(const ReportCommandOptions& options) {
  ProfileSelection selection = options.selection;
  selection.allocations = true;
  auto opened = open_profile(selection);
  if (!opened) return report_open_error(selection, opened.error());
  const report::ReportProfile& profile = (*opened)->profile;
  auto heap = report::build_heap_report(profile, (*opened)->threads);
  if (!heap) return report_open_error(selection, heap.error());
  std::string out;
  if (options.json) {
    out = report::heap_report_json(profile, report::summarize(profile, (*opened)->threads), *heap,
                                   options.limit);
  } else {
    const report::TextStyle style = terminal_style(options.width, options.colour);
    out = report::header_text(report::summarize(profile, (*opened)->threads), selection.input,
                              style) +
          report::heap_report_text(profile, *heap, options.limit, style);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace

int run_report_command(const ReportCommandOptions& options) {
  if (options.heap) return run_heap_report(options);
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
