// cli/record_command.hpp: `sprof record -- cmd args...`.
#pragma once

#include "options.hpp"

namespace sprof::cli {

// Records, saves, prints the summary and (unless --save-only) serves the profile.
// Returns the recorded command's exit status, or an exit code from exit_codes.hpp.
int run_record_command(const RecordCommandOptions& options);

}  // namespace sprof::cli
