// sprof/report/diff_report.hpp
//
// A profile diff (profile_diff.hpp) as text for the terminal, in the spirit of `perf diff`: a
// header naming both files, then one line per function with its total share in each profile,
// the change of its total and of its self share in points, its module and name. Or as JSON for
// scripts and CI, with a stable shape.
#pragma once

#include <cstddef>
#include <string>

#include "sprof/report/profile_diff.hpp"
#include "sprof/report/text_report.hpp"

namespace sprof::report {

struct DiffReportOptions {
  std::string base_file;
  std::string next_file;
  size_t limit = 0;  // functions listed; 0: all
};

std::string diff_text(const ProfileDiff& diff, const DiffReportOptions& options,
                      const TextStyle& style);

// {"base": {"file", "samples"}, "new": {...}, "matchedFunctions",
//  "functions": [{"name", "module", "base": {"self", "total", "selfPercent", "totalPercent"},
//                 "new": {...}, "totalDelta", "selfDelta"}]}; percentages and deltas rounded to
// hundredths.
std::string diff_json(const ProfileDiff& diff, const DiffReportOptions& options);

}  // namespace sprof::report
