// cli/compare_command.hpp: `sprof compare BASE NEW`, both profiles served by one sprof server and
// opened in the Firefox Profiler's compare view, one thread of each side by side.
#pragma once

#include "report_options.hpp"

namespace sprof::cli {

int run_compare_command(const CompareCommandOptions& options);

}  // namespace sprof::cli
