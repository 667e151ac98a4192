// cli/report_command.hpp: `sprof report`, a profile read on the terminal (report/ computes and
// renders; this picks the width, colours and exit code).
#pragma once

#include "report_options.hpp"

namespace sprof::cli {

int run_report_command(const ReportCommandOptions& options);

}  // namespace sprof::cli
