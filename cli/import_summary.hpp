// cli/import_summary.hpp: what `sprof import` says about the file besides the usual summary:
// where and how it was recorded, which binaries were used, refused or missing, what was skipped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sprof/core/build_id.hpp"
#include "sprof/perfdata/perf_data_import.hpp"

namespace sprof::cli {

// One line each, without the "sprof: " prefix. `local_kernel` is this machine's kernel build-id
// (to say when kernel frames cannot be named).
std::vector<std::string> import_summary_lines(const perfdata::ImportReport& report,
                                              const std::optional<BuildId>& local_kernel);

}  // namespace sprof::cli
