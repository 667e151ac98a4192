// report/src/flame_graph_script.hpp: the script embedded in every flame graph SVG (zoom, search,
// details on hover). It reads what flame_graph_svg.cpp writes: each frame a <g class="f"> with
// data-s (first sample), data-n (samples), data-d (depth), a <title> whose first line is the
// name, a <rect> and a <text>; the root first; the <svg>'s data-graph-left, data-graph-width and
// data-char-width; elements #details, #matched, #search and #reset.
#pragma once

#include <string_view>

namespace sprof::report {

std::string_view flame_graph_script();

}  // namespace sprof::report
