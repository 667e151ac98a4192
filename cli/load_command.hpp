// cli/load_command.hpp: `sprof load profile.json.gz`.
#pragma once

#include "options.hpp"

namespace sprof::cli {

int run_load_command(const LoadCommandOptions& options);

}  // namespace sprof::cli
