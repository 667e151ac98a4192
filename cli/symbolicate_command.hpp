// cli/symbolicate_command.hpp: `sprof symbolicate IN [-o OUT]`, the self-contained form of a
// profile saved without symbols (an older sprof, or --no-presymbolicate).
#pragma once

#include "options.hpp"

namespace sprof::cli {

int run_symbolicate_command(const SymbolicateCommandOptions& options);

}  // namespace sprof::cli
