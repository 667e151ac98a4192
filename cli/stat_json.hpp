// cli/stat_json.hpp: `sprof stat --json`, one object for scripts and CI. Its keys are stable
// (docs/stat.md lists them); values are the report's, unrounded: counters scaled as perf scales
// them, task-clock in ns.
#pragma once

#include <string>
#include <vector>

#include "stat_metrics.hpp"

namespace sprof::cli {

std::string format_stat_json(const std::vector<std::string>& command, const std::vector<int>& pids,
                             const StatSummary& summary, const std::vector<recorder::Counts>& runs);

}  // namespace sprof::cli
