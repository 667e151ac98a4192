// Fuzz target: a profile read for `sprof report` / `sprof export` (read_processed_profile), then
// everything that walks its stacks: the function list, both call trees, the text and JSON
// renderings, folded stacks, the pprof message, the flame graph SVG and the heap report (which
// trust the reader's checks that every index is in range and prefixes come first).
#include "sprof/report/flame_graph_svg.hpp"
#include "sprof/report/folded_stacks.hpp"
#include "sprof/report/heap_report_json.hpp"
#include "sprof/report/heap_report_text.hpp"
#include "sprof/report/json_report.hpp"
#include "sprof/report/pprof_export.hpp"
#include "sprof/report/report_view.hpp"
#include "sprof/report/text_report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sprof::report;
  const auto profile =
      read_processed_profile(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!profile) return 0;
  auto threads = select_threads(*profile, {});
  if (!threads) return 0;
  const ReportSummary summary = summarize(*profile, *threads);
  (void)folded_stacks(*profile, *threads, {.thread_prefix = true});
  (void)pprof_message(*profile, *threads);
  FlameGraphSvgOptions flame;
  flame.subtitle = describe_profile(*profile, *threads);
  flame.inverted = size % 2 == 0;
  (void)flame_graph_svg(*profile, build_flame_graph(*profile, *threads), flame);
  if (const auto heap = build_heap_report(*profile, *threads)) {
    (void)heap_report_text(*profile, *heap, 0, {60, true});
    (void)heap_report_json(*profile, summary, *heap, 0);
  }
  for (View view : {View::kFunctions, View::kTree, View::kCallers}) {
    ViewOptions options;
    options.view = view;
    options.per_thread = view == View::kTree;
    options.callers_of = profile->functions.empty() ? "x" : profile->functions.back().name;
    const auto sections = build_sections(*profile, *threads, options);
    if (!sections) continue;
    (void)sections_text(*profile, *sections, options, {60, true});
    (void)report_json(*profile, summary, *sections, options);
  }
  return 0;
}
