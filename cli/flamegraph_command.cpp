#include "flamegraph_command.hpp"

#include <string>

#include "exit_codes.hpp"
#include "output_file.hpp"
#include "report_input.hpp"
#include "sprof/report/flame_graph.hpp"
#include "sprof/report/flame_graph_svg.hpp"
#include "summary.hpp"

namespace sprof::cli {

int run_flamegraph_command(const FlameGraphCommandOptions& options) {
  auto opened = open_profile_stacks(options.selection, options.heap);
  if (!opened) return report_open_error(options.selection, opened.error());
  const report::ReportProfile& profile = (*opened)->profile;
  const report::ThreadSet& threads = (*opened)->threads;
  const bool memory = options.heap != HeapView::kNone;
  const bool retained = options.heap == HeapView::kRetained;
  report::FlameGraphSvgOptions svg;
  svg.title = !options.title.empty() ? options.title
              : memory               ? (retained ? "Retained Memory" : "Allocated Memory")
              : options.inverted     ? "Icicle Graph"
                                     : "Flame Graph";
  svg.subtitle = report::describe_profile(
      profile, threads,
      memory ? human_bytes((*opened)->heap_bytes) + (retained ? " retained" : " allocated") : "");
  if (memory) svg.unit = "byte";
  svg.inverted = options.inverted;
  svg.width_px = options.width_px;
  svg.min_width_px = options.min_width_px;
  const std::string bytes =
      report::flame_graph_svg(profile, report::build_flame_graph(profile, threads), svg);
  return write_output(options.output, bytes) ? kExitOk : kExitFailure;
}

}  // namespace sprof::cli
