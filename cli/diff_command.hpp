// cli/diff_command.hpp: `sprof diff`, two profiles compared function by function (report/ does the
// comparison and draws the differential flame graph; this opens the files, prints, writes and
// picks the exit code, 4 for a regression over --fail-above).
#pragma once

#include "report_options.hpp"

namespace sprof::cli {

int run_diff_command(const DiffCommandOptions& options);

}  // namespace sprof::cli
