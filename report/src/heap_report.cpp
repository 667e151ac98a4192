#include "sprof/report/heap_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>

#include "sprof/heap/sample_weight.hpp"

namespace sprof::report {

namespace {

// Sites by function path, and the site of each (thread, stack) met so far.
class SiteTable {
 public:
  explicit SiteTable(const ThreadSet& threads) : threads_(threads) {
    by_stack_.resize(threads.size());
    for (size_t t = 0; t < threads.size(); ++t) by_stack_[t].assign(threads[t]->stacks.size(), -1);
  }

  uint32_t site_of(size_t table, std::optional<uint32_t> stack) {
    if (!stack) return intern({}, false);
    int64_t& cached = by_stack_[table][*stack];
    if (cached >= 0) return static_cast<uint32_t>(cached);
    const ReportThread& thread = *threads_[table];
    std::vector<uint32_t> path;
    std::optional<uint32_t> node = *stack;
    while (node && path.size() < kHeapSiteFrames) {
      path.push_back(thread.stacks[*node].function);
      node = thread.stacks[*node].prefix;
    }
    const uint32_t id = intern(std::move(path), node.has_value());
    cached = id;
    return id;
  }

  std::vector<HeapSite> take() { return std::move(sites_); }

 private:
  uint32_t intern(std::vector<uint32_t> path, bool cut) {
    auto [it, added] = ids_.try_emplace(std::pair{path, cut}, static_cast<uint32_t>(sites_.size()));
    if (added) sites_.push_back({std::move(path), cut, {}});
    return it->second;
  }

  const ThreadSet& threads_;
  std::vector<std::vector<int64_t>> by_stack_;
  std::map<std::pair<std::vector<uint32_t>, bool>, uint32_t> ids_;
  std::vector<HeapSite> sites_;
};

template <typename T>
std::optional<T> meta_number(const ReportMeta& meta, std::string_view key) {
  const MetaValue* v = meta.sprof_value(key);
  if (!v) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<T>(*i);
  if (const auto* d = std::get_if<double>(v)) return static_cast<T>(*d);
  return std::nullopt;
}

// Feeds every selected thread's rows in time order; within a table, in row order (a block's
// allocation before its free even where their times tie or a clock stepped back).
void analyse_rows(const ThreadSet& threads, HeapReport& report, heap::HeapAnalysis& analysis,
                  SiteTable& sites) {
  using Head = std::pair<double, size_t>;  // the next row's time, table
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::vector<size_t> next(threads.size(), 0);
  for (size_t t = 0; t < threads.size(); ++t) {
    if (!threads[t]->allocations.empty()) heads.push({threads[t]->allocations[0].time_ms, t});
  }
  while (!heads.empty()) {
    const size_t t = heads.top().second;
    heads.pop();
    const AllocationRow& row = threads[t]->allocations[next[t]++];
    if (next[t] < threads[t]->allocations.size()) {
      heads.push({threads[t]->allocations[next[t]].time_ms, t});
    }
    if (row.is_free()) {
      analysis.free({row.time_ms, t, row.thread_id, row.address});
      continue;
    }
    heap::AllocationEvent e;
    e.time_ms = row.time_ms;
    e.space = t;
    e.thread = row.thread_id;
    e.address = row.address;
    e.bytes = row.bytes;
    e.site = sites.site_of(t, row.stack);
    e.folded = row.address >= heap::kFoldedAddressBase;
    // A sampled row keeps only the estimate; the size comes back from it (sample_weight.hpp).
    e.size = heap::size_from_estimated_bytes(row.bytes, report.interval_bytes);
    e.calls = heap::estimated_calls(e.size, report.interval_bytes);
    analysis.allocate(e);
  }
  analysis.finish();
}

HeapTotalsView totals_from_rows(const heap::HeapTotals& t) {
  HeapTotalsView v;
  v.calls = t.all.calls;
  v.bytes = t.all.bytes;
  v.temporary = t.all.temporary;
  v.short_lived = t.all.short_lived;
  v.mean_lifetime_ms = t.all.average_lifetime_ms();
  v.peak_bytes = t.all.peak_bytes;
  v.peak_time_ms = t.peak_time_ms;
  v.leaked_bytes = t.all.leaked_bytes;
  v.leaked_blocks = t.all.leaked_blocks;
  v.sizes = t.sizes;
  return v;
}

// The converter's totals (source_description.cpp, describe_heap): present in profiles recorded
// since the analysis existed (heapSizeHistogram marks them).
std::optional<HeapTotalsView> totals_from_meta(const ReportMeta& meta) {
  const MetaValue* histogram = meta.sprof_value("heapSizeHistogram");
  if (!histogram || !std::holds_alternative<std::string>(*histogram)) return std::nullopt;
  const auto sizes = heap::parse_size_histogram(std::get<std::string>(*histogram));
  if (!sizes) return std::nullopt;
  HeapTotalsView v;
  v.from_recording = true;
  v.sizes = *sizes;
  v.calls = meta_number<double>(meta, "heapCalls").value_or(0);
  // The interposers add their call counts in batches that a process ending by _exit loses.
  v.calls = std::max(v.calls, meta_number<double>(meta, "heapAllocations").value_or(0));
  v.bytes = meta_number<int64_t>(meta, "heapCallBytes").value_or(0);
  v.temporary = meta_number<double>(meta, "heapTemporary").value_or(0);
  v.short_lived = meta_number<double>(meta, "heapShortLived").value_or(0);
  v.mean_lifetime_ms = meta_number<double>(meta, "heapMeanLifetimeMs").value_or(0);
  v.peak_bytes = meta_number<int64_t>(meta, "heapPeakLiveBytes").value_or(0);
  v.peak_time_ms = meta_number<double>(meta, "heapPeakTimeMs").value_or(0);
  v.leaked_bytes = meta_number<int64_t>(meta, "heapLiveAtExitBytes").value_or(0);
  v.leaked_blocks = meta_number<uint64_t>(meta, "heapLiveAtExitBlocks").value_or(0);
  return v;
}

}  // namespace

Result<HeapReport> build_heap_report(const ReportProfile& profile, const ThreadSet& threads) {
  size_t rows = 0;
  for (const ReportThread* t : threads) rows += t->allocations.size();
  if (rows == 0) {
    return fail(Errc::kInvalidArgument,
                "no allocations in the selected threads (record with --heap or --heap=all)");
  }
  HeapReport report;
  const MetaValue* mode = profile.meta.sprof_value("heap");
  report.sampled = mode && std::holds_alternative<std::string>(*mode) &&
                   std::get<std::string>(*mode) == "sampled";
  if (report.sampled) {
    report.interval_bytes = meta_number<uint64_t>(profile.meta, "heapIntervalBytes").value_or(0);
  }
  heap::HeapAnalysis analysis;
  SiteTable sites(threads);
  analyse_rows(threads, report, analysis, sites);
  report.rows = analysis.totals();
  report.sites = sites.take();
  // Every site had an allocation, so the analysis knows each.
  for (size_t i = 0; i < report.sites.size(); ++i) report.sites[i].stats = analysis.sites()[i];
  std::stable_sort(
      report.sites.begin(), report.sites.end(),
      [](const HeapSite& a, const HeapSite& b) { return a.stats.bytes > b.stats.bytes; });
  // The recording's totals cover every thread: a selection of some shows its rows' totals.
  const auto recorded = threads.size() == profile.threads.size() ? totals_from_meta(profile.meta)
                                                                 : std::optional<HeapTotalsView>();
  report.totals = recorded ? *recorded : totals_from_rows(report.rows);
  return report;
}

}  // namespace sprof::report
