#include "sprof/report/report_view.hpp"

#include <algorithm>
#include <set>

namespace sprof::report {

namespace {

Result<Section> section_of(const ReportProfile& profile, ThreadSet threads,
                           const ViewOptions& options) {
  Section section;
  switch (options.view) {
    case View::kFunctions:
      section.functions = function_stats(profile, threads, options.sort);
      break;
    case View::kTree: section.tree = top_down_tree(profile, threads); break;
    case View::kCallers: {
      SPROF_TRY(section.tree, callers_tree(profile, threads, options.callers_of));
      break;
    }
  }
  section.threads = std::move(threads);
  return section;
}

}  // namespace

Result<std::vector<Section>> build_sections(const ReportProfile& profile, const ThreadSet& threads,
                                            const ViewOptions& options) {
  std::vector<Section> sections;
  if (!options.per_thread) {
    SPROF_TRY(Section merged, section_of(profile, threads, options));
    sections.push_back(std::move(merged));
    return sections;
  }
  for (const ReportThread* thread : threads) {
    auto section = section_of(profile, {thread}, options);
    // --per-thread --callers F: threads that never ran F have no section.
    if (!section && section.error().code == Errc::kNotFound && options.view == View::kCallers) {
      continue;
    }
    if (!section) return unexpected(std::move(section).error());
    sections.push_back(std::move(*section));
  }
  return sections;
}

ReportSummary summarize(const ReportProfile& profile, const ThreadSet& threads) {
  ReportSummary s;
  // meta.product is the profile's name (the command, --profile-name, "System"); "sprof" is what
  // a profile says when nothing named it.
  if (!profile.meta.product.empty() && profile.meta.product != "sprof") {
    s.name = profile.meta.product;
  } else if (!profile.threads.empty()) {
    s.name = profile.threads.front().process_name;
  }
  std::set<int64_t> pids;
  std::optional<double> first, last;
  for (const ReportThread* t : threads) {
    s.samples += t->samples;
    s.idle_samples += t->idle_samples;
    pids.insert(t->pid);
    if (t->first_sample_ms)
      first = std::min(first.value_or(*t->first_sample_ms), *t->first_sample_ms);
    if (t->last_sample_ms) last = std::max(last.value_or(*t->last_sample_ms), *t->last_sample_ms);
  }
  s.processes = pids.size();
  s.threads = threads.size();
  const ReportMeta& meta = profile.meta;
  if (meta.profiling_start_ms && meta.profiling_end_ms) {
    s.duration_ms = *meta.profiling_end_ms - *meta.profiling_start_ms;
  } else if (first && last) {
    s.duration_ms = *last - *first + meta.interval_ms;
  }
  if (const MetaValue* event = meta.sprof_value("event")) {
    if (const auto* text = std::get_if<std::string>(event)) s.event = *text;
  }
  if (const MetaValue* lost = meta.sprof_value("lostSamples")) {
    if (const auto* n = std::get_if<int64_t>(lost)) s.lost_samples = *n;
  }
  return s;
}

}  // namespace sprof::report
