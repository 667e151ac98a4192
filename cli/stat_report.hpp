// cli/stat_report.hpp: `sprof stat`'s report for people, laid out as perf stat's: one line per
// counter with its derived metric, the elapsed time, what this machine cannot count, and then
// one row per thread.
#pragma once

#include <string>
#include <vector>

#include "stat_metrics.hpp"

namespace sprof::cli {

struct StatTarget {
  std::string description;  // "'./app args'" or "process 1234"
};

// `runs` as `summarize` takes them; the per-thread table comes from the last run, and only
// when there was one run (a thread's row is not the same thread in another run).
std::string format_stat_report(const StatTarget& target, const StatSummary& summary,
                               const std::vector<recorder::Counts>& runs);

}  // namespace sprof::cli
