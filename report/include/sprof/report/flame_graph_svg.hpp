// sprof/report/flame_graph_svg.hpp
//
// A flame graph as one self-contained, interactive SVG file (`sprof flamegraph`): a rectangle
// per node of the merged stacks (flame_graph.hpp), as wide as its samples, root at the bottom
// (or at the top: an icicle graph). Its own small script, embedded, needs no network: hovering
// shows a frame's function, module, file, samples and share; a click zooms to a frame; a search
// highlights the matching functions and says which share of the samples they cover.
//
// The bytes depend only on the graph and the options (no clock, no locale), so one profile always
// gives the same file. Every name is XML-escaped. Frames narrower than `min_width_px` are left
// out with what they call (zooming cannot bring them back); the subtitle says how many.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/report/flame_colours.hpp"
#include "sprof/report/flame_graph.hpp"
#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

struct FlameGraphSvgOptions {
  std::string title = "Flame Graph";
  std::string subtitle;   // e.g. describe_profile()
  bool inverted = false;  // root at the top
  double width_px = 1200;
  double min_width_px = 0.1;
  // What a frame's width counts, singular ("sample"; "byte" for a memory flame graph); the
  // tooltip adds an "s" for more than one.
  std::string unit = "sample";
  // Per node of the graph: its fill, for graphs coloured by something other than code kind (a
  // differential graph). Empty: by code kind, shaded by name, with the kinds as the legend.
  std::vector<Rgb> node_fills;
  std::vector<LegendEntry> legend;  // with node_fills
  // Per node of the graph (or none): one more line of its tooltip, e.g. a differential graph's
  // change.
  std::vector<std::string> node_notes;
};

std::string flame_graph_svg(const ReportProfile& profile, const FlameGraph& graph,
                            const FlameGraphSvgOptions& options = {});

// "<command> · 2026-11-27 17:03:26 UTC · 1234 samples · 3 threads": the recording's facts for a
// subtitle, all from the file (the date is when it was recorded). `weight`, when given, replaces
// "1234 samples" (a memory flame graph's "12.5 MiB allocated").
std::string describe_profile(const ReportProfile& profile, const ThreadSet& threads,
                             const std::string& weight = {});

}  // namespace sprof::report
