// sprof/report/heap_report_text.hpp
//
// `sprof report --heap` as text: a header of `#` lines with the totals, one line per allocation
// site (bytes allocated, calls, temporary, live at the peak, leaked, average lifetime,
// short-lived; the site as "leaf < caller < ..."), then the size histogram. Fits `style.width`
// by shortening the site names like the function list does.
#pragma once

#include <string>

#include "sprof/report/heap_report.hpp"
#include "sprof/report/text_report.hpp"

namespace sprof::report {

// `limit`: sites listed (0: all).
std::string heap_report_text(const ReportProfile& profile, const HeapReport& report, size_t limit,
                             const TextStyle& style);

}  // namespace sprof::report
