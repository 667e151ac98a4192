#include "diff_command.hpp"

#include <cstdio>
#include <string>

#include "exit_codes.hpp"
#include "output_file.hpp"
#include "report_input.hpp"
#include "sprof/report/diff_flame_graph.hpp"
#include "sprof/report/diff_report.hpp"
#include "sprof/report/flame_graph.hpp"
#include "sprof/report/flame_graph_svg.hpp"
#include "terminal_style.hpp"

namespace sprof::cli {

namespace {

std::string points(double delta) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.2f", delta);
  return buffer;
}

// NEW's flame graph, each frame coloured by the change of its call path since BASE.
std::string differential_svg(const OpenedProfile& base, const OpenedProfile& next,
                             const DiffCommandOptions& options) {
  const report::FlameGraph base_graph = report::build_flame_graph(base.profile, base.threads);
  const report::FlameGraph next_graph = report::build_flame_graph(next.profile, next.threads);
  const std::vector<double> deltas =
      report::path_deltas(base.profile, base_graph, next.profile, next_graph);
  report::DiffFills fills = report::diff_fills(deltas);
  report::FlameGraphSvgOptions svg;
  svg.title = "Differential Flame Graph";
  svg.subtitle = report::describe_profile(next.profile, next.threads) + " \u00b7 compared with " +
                 options.base.input;
  svg.node_fills = std::move(fills.node_fills);
  svg.legend = std::move(fills.legend);
  svg.node_notes.reserve(deltas.size());
  for (const double d : deltas) svg.node_notes.push_back(points(d) + " points since base");
  return report::flame_graph_svg(next.profile, next_graph, svg);
}

// The functions whose total share grew by more than the limit, reported on stderr.
bool report_regressions(const report::ProfileDiff& diff, double limit) {
  size_t over = 0;
  for (const report::FunctionDelta& f : diff.functions) {
    if (f.total_delta() <= limit) continue;
    if (over++ == 0) {
      std::fprintf(stderr, "sprof: diff: %s (%s) grew by %s points of total, over %.2f\n",
                   f.name.c_str(), f.module.empty() ? "[unknown]" : f.module.c_str(),
                   points(f.total_delta()).c_str(), limit);
    }
  }
  if (over > 1)
    std::fprintf(stderr, "sprof: diff: and %zu more functions over %.2f\n", over - 1, limit);
  return over > 0;
}

}  // namespace

int run_diff_command(const DiffCommandOptions& options) {
  auto base = open_profile(options.base);
  if (!base) return report_open_error(options.base, base.error());
  ProfileSelection next_selection = options.base;
  next_selection.input = options.next_input;
  auto next = open_profile(next_selection);
  if (!next) return report_open_error(next_selection, next.error());

  const report::ProfileDiff diff =
      report::diff_profiles((*base)->profile, (*base)->threads, (*next)->profile, (*next)->threads);
  if (diff.matched == 0) {
    std::fprintf(stderr,
                 "sprof: diff: %s and %s have no function in common (module and name): "
                 "not two recordings of one program?\n",
                 options.base.input.c_str(), options.next_input.c_str());
    return kExitUsage;
  }
  if (!options.output.empty() &&
      !write_output(options.output, differential_svg(**base, **next, options))) {
    return kExitFailure;
  }
  // With the graph on standard output, the table would corrupt it.
  if (options.output.empty() || !is_standard_output(options.output)) {
    const report::DiffReportOptions shown{options.base.input, options.next_input, options.limit};
    const std::string out =
        options.json
            ? report::diff_json(diff, shown)
            : report::diff_text(diff, shown, terminal_style(options.width, options.colour));
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) return kExitFailure;
  }
  if (options.fail_above && report_regressions(diff, *options.fail_above)) return kExitRegression;
  return kExitOk;
}

}  // namespace sprof::cli
