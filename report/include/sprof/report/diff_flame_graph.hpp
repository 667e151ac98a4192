// sprof/report/diff_flame_graph.hpp
//
// The colours of a differential flame graph, as inferno-diff-folded + inferno-flamegraph draw
// one: the new profile's graph keeps its widths, and each frame is coloured by how its call path
// (the functions from the root to it) changed: its share of the new profile's samples minus the
// same path's share of the base profile's, in points. Red grew, blue shrank, deeper the larger
// the change, relative to the largest change of any frame. Paths are matched by module and
// name of every function on them, never by address.
#pragma once

#include <vector>

#include "sprof/report/flame_colours.hpp"
#include "sprof/report/flame_graph.hpp"
#include "sprof/report/report_profile.hpp"

namespace sprof::report {

// Per node of `next_graph`: its path's share in `next` minus its share in `base`, in points.
std::vector<double> path_deltas(const ReportProfile& base, const FlameGraph& base_graph,
                                const ReportProfile& next, const FlameGraph& next_graph);

struct DiffFills {
  std::vector<Rgb> node_fills;  // per node of the new graph
  std::vector<LegendEntry> legend;
};

DiffFills diff_fills(const std::vector<double>& deltas);

}  // namespace sprof::report
