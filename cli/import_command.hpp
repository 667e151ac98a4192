// cli/import_command.hpp: `sprof import perf.data`.
#pragma once

#include "options.hpp"

namespace sprof::cli {

// Converts a perf.data file, saves the profile, prints what the import found and (unless
// --save-only) serves it. Returns an exit code from exit_codes.hpp: a file that is missing or not
// one sprof reads is a usage error, as for `sprof load`.
int run_import_command(const ImportCommandOptions& options);

}  // namespace sprof::cli
