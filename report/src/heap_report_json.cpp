#include "sprof/report/heap_report_json.hpp"

#include <cmath>

#include "sprof/core/json_writer.hpp"
#include "sprof/report/json_report.hpp"

namespace sprof::report {

namespace {

uint64_t whole(double n) { return static_cast<uint64_t>(std::llround(n)); }

void write_totals(JsonWriter& w, const HeapTotalsView& t) {
  w.key("totals").begin_object();
  w.field("calls", whole(t.calls)).field("bytes", t.bytes);
  w.field("temporary", whole(t.temporary)).field("shortLived", whole(t.short_lived));
  w.key("shortLivedMs").value(heap::kShortLivedMs, 3);
  w.key("meanLifetimeMs").value(t.mean_lifetime_ms, 3);
  w.field("peakBytes", t.peak_bytes);
  w.key("peakTimeMs").value(t.peak_time_ms, 3);
  w.field("leakedBytes", t.leaked_bytes).field("leakedBlocks", t.leaked_blocks);
  w.end_object();
}

void write_sizes(JsonWriter& w, const heap::SizeHistogram& sizes) {
  w.key("sizes").begin_array();
  for (size_t b = 0; b < sizes.size(); ++b) {
    if (whole(sizes[b]) == 0) continue;
    const uint64_t from = heap::bucket_lower_bound(b);
    w.begin_object().field("from", from).field("to", b == 0 ? 0 : 2 * from - 1);
    w.field("calls", whole(sizes[b])).end_object();
  }
  w.end_array();
}

void write_site(JsonWriter& w, const ReportProfile& profile, const HeapSite& site, bool sampled) {
  const heap::SiteStats& s = site.stats;
  w.begin_object();
  const Function* leaf = site.path.empty() ? nullptr : &profile.functions[site.path[0]];
  w.field("function", leaf ? leaf->name : std::string("(no stack)"));
  w.field("module", leaf ? leaf->module : std::string());
  w.key("callers").begin_array();
  for (size_t i = 1; i < site.path.size(); ++i) w.value(profile.functions[site.path[i]].name);
  w.end_array();
  w.field("callersCut", site.cut);
  w.field("bytes", s.bytes).field("calls", whole(s.calls));
  if (sampled) w.key("callsStdErr").value(std::sqrt(std::max(s.calls_variance, 0.0)), 1);
  w.field("temporary", whole(s.temporary)).field("peakBytes", s.peak_bytes);
  w.field("leakedBytes", s.leaked_bytes).field("leakedBlocks", s.leaked_blocks);
  w.field("freed", whole(s.freed));
  w.key("meanLifetimeMs");
  if (s.freed > 0) {
    w.value(s.average_lifetime_ms(), 3);
  } else {
    w.null();
  }
  w.field("shortLived", whole(s.short_lived));
  w.field("foldedRows", s.folded_rows).field("foldedBytes", s.folded_bytes);
  w.end_object();
}

}  // namespace

std::string heap_report_json(const ReportProfile& profile, const ReportSummary& summary,
                             const HeapReport& report, size_t limit) {
  JsonWriter w;
  w.begin_object();
  write_report_summary(w, profile, summary);
  w.field("view", "heap");
  w.key("heap").begin_object();
  w.field("mode", report.sampled ? "sampled" : "all");
  w.field("intervalBytes", report.interval_bytes);
  w.field("totalsFrom", report.totals.from_recording ? "recording" : "rows");
  write_totals(w, report.totals);
  w.field("foldedRows", report.rows.all.folded_rows);
  w.field("foldedBytes", report.rows.all.folded_bytes);
  w.field("unmatchedFrees", report.rows.unmatched_frees);
  write_sizes(w, report.totals.sizes);
  w.key("sites").begin_array();
  size_t written = 0;
  for (const HeapSite& site : report.sites) {
    if (limit != 0 && written++ == limit) break;
    write_site(w, profile, site, report.sampled);
  }
  w.end_array();
  w.end_object();
  w.end_object();
  return w.take() + "\n";
}

}  // namespace sprof::report
