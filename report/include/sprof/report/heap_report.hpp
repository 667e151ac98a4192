// sprof/report/heap_report.hpp
//
// `sprof report --heap`: heaptrack's and DHAT's analyses (heap/heap_analysis.hpp) of a profile's
// native-allocations rows, per allocation site and in all. A site is the allocation stack's
// leaf function and its first callers (`kHeapSiteFrames` frames, merged across threads by
// name), so one function called from two places is two sites.
//
// The rows of every selected thread are fed to the analysis in time order, each table's rows in
// their own order (a block's free is in its allocating thread's table: one table is one space of
// addresses). Folded rows (docs/heap.md, "Long recordings") count in bytes and live memory but
// never as calls, temporaries or lifetimes. The totals of the whole recording come from
// meta.sprof where the converter wrote them (it saw every record before folding), else from the
// rows. Rendered as text by heap_report_text.hpp, as JSON by heap_report_json.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/heap/heap_analysis.hpp"
#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

// Frames that name a site, from the allocating function outwards (the summary's call paths have
// as many).
inline constexpr size_t kHeapSiteFrames = 6;

struct HeapSite {
  std::vector<uint32_t> path;  // ReportProfile::functions, leaf first, at most kHeapSiteFrames
  bool cut = false;            // the stack goes on beyond `path`
  heap::SiteStats stats;
};

// The totals shown above the sites.
struct HeapTotalsView {
  bool from_recording = false;  // meta.sprof's (every record, before folding); else the rows'
  double calls = 0;             // the interposers' exact count when from the recording
  int64_t bytes = 0;
  double temporary = 0;
  double short_lived = 0;
  double mean_lifetime_ms = 0;
  int64_t peak_bytes = 0;
  double peak_time_ms = 0;
  int64_t leaked_bytes = 0;
  uint64_t leaked_blocks = 0;
  heap::SizeHistogram sizes{};
};

struct HeapReport {
  bool sampled = false;
  uint64_t interval_bytes = 0;  // sampled: the mean interval
  HeapTotalsView totals;
  heap::HeapTotals rows;        // from the rows of the selected threads
  std::vector<HeapSite> sites;  // by bytes allocated, largest first; an empty path: no stack
};

// kInvalidArgument when the selected threads have no allocation rows.
Result<HeapReport> build_heap_report(const ReportProfile& profile, const ThreadSet& threads);

}  // namespace sprof::report
