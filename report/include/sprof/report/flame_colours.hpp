// sprof/report/flame_colours.hpp
//
// The colours of flame graph frames. By code kind: the kind picks a hue family (user code warm
// red, libraries gold, kernel blue, JIT green, the rest grey) and a hash of the name the shade
// within it, so neighbours stand apart and a function has the same colour in every graph. For a
// differential graph: red for what grew, blue for what shrank, deeper the larger the change.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/report/flame_graph.hpp"

namespace sprof::report {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

struct LegendEntry {
  std::string label;
  Rgb colour;
};

Rgb code_kind_fill(CodeKind kind, std::string_view name);
// One entry per kind, in a middle shade.
std::vector<LegendEntry> code_kind_legend();

// `delta` of `scale` (e.g. points of the total, and the largest change): 0 is near white, +scale
// full red, -scale full blue.
Rgb change_fill(double delta, double scale);

}  // namespace sprof::report
