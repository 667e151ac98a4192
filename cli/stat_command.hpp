// cli/stat_command.hpp: `sprof stat` — counts a command (-r: several times) or running processes
// (-p), then prints the report or JSON. Exits with the command's own status.
#pragma once

#include "options.hpp"

namespace sprof::cli {

int run_stat_command(const StatCommandOptions& options);

}  // namespace sprof::cli
