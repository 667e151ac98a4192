// sprof/report/json_report.hpp
//
// A report as JSON for scripts and CI. The shape is stable (new fields may be added, none
// renamed or removed):
//   {"profile": {"name", "product", "durationMs", "event", "samples", "idleSamples",
//                "lostSamples", "processes", "threads"},
//    "view": "functions" | "tree" | "callers",
//    "sections": [{"threads": [{"name", "tid", "pid", "processName", "samples", "idleSamples"}],
//                  "weight": N,
//                  "functions": [{"name", "module", "self", "total", "selfPercent",
//                                 "totalPercent"}],                       (view "functions")
//                  "tree": [{"name", "module", "total", "self", "totalPercent",
//                            "children": [...]}]}]}                       (the other views)
// Weights are sample counts (or the profile's sample weights); percentages have two decimals.
// --limit, --min-percent and --max-depth apply as in the text.
#pragma once

#include <string>
#include <vector>

#include "sprof/report/report_view.hpp"

namespace sprof {
class JsonWriter;
}

namespace sprof::report {

// The "profile" member every report's JSON starts with.
void write_report_summary(JsonWriter& w, const ReportProfile& profile, const ReportSummary& s);

std::string report_json(const ReportProfile& profile, const ReportSummary& summary,
                        const std::vector<Section>& sections, const ViewOptions& options);

}  // namespace sprof::report
