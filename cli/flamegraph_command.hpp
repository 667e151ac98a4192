// cli/flamegraph_command.hpp: `sprof flamegraph`, a profile as an interactive SVG flame graph
// (report/ draws it; this opens the profile, writes the file and picks the exit code).
#pragma once

#include "report_options.hpp"

namespace sprof::cli {

int run_flamegraph_command(const FlameGraphCommandOptions& options);

}  // namespace sprof::cli
