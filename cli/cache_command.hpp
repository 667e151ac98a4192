// cli/cache_command.hpp: `sprof cache`, the symbol cache seen and cleared by its user, and
// filled in the background for commands that ended before their modules' index was saved.
#pragma once

#include "options.hpp"

namespace sprof::cli {

int run_cache_command(const CacheCommandOptions& options);

}  // namespace sprof::cli
