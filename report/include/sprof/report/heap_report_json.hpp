// sprof/report/heap_report_json.hpp
//
// `sprof report --heap --json`, a stable shape (new fields may be added, none renamed or removed):
//   {"profile": {...as report_json...}, "view": "heap",
//    "heap": {"mode": "all" | "sampled", "intervalBytes": N, "totalsFrom": "recording" | "rows",
//             "totals": {"calls", "bytes", "temporary", "shortLived", "shortLivedMs",
//                        "meanLifetimeMs", "peakBytes", "peakTimeMs", "leakedBytes",
//                        "leakedBlocks"},
//             "foldedRows", "foldedBytes", "unmatchedFrees",
//             "sizes": [{"from", "to", "calls"}],
//             "sites": [{"function", "module", "callers": [names, leaf's caller first],
//                        "callersCut", "bytes", "calls", "callsStdErr" (sampled), "temporary",
//                        "peakBytes", "leakedBytes", "leakedBlocks", "freed", "meanLifetimeMs"
//                        (null when none was freed), "shortLived", "foldedRows",
//                        "foldedBytes"}]}}
// Counts are whole numbers (rounded estimates when sampled); `--limit` applies to the sites.
#pragma once

#include <string>

#include "sprof/report/heap_report.hpp"
#include "sprof/report/report_view.hpp"

namespace sprof::report {

std::string heap_report_json(const ReportProfile& profile, const ReportSummary& summary,
                             const HeapReport& report, size_t limit);

}  // namespace sprof::report
