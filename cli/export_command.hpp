// cli/export_command.hpp: `sprof export`, a profile's stacks in another tool's format
// (report/ builds the text; this writes it where -o says and picks the exit code).
#pragma once

#include "report_options.hpp"

namespace sprof::cli {

int run_export_command(const ExportCommandOptions& options);

}  // namespace sprof::cli
