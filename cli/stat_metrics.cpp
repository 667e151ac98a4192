#include "stat_metrics.hpp"

#include <cmath>
#include <map>

namespace sprof::cli {

using recorder::CounterEvent;

double scaled_value(const recorder::CounterReading& r) {
  if (r.time_running_ns == 0) return 0;
  if (r.time_running_ns >= r.time_enabled_ns) return static_cast<double>(r.value);
  return static_cast<double>(r.value) * static_cast<double>(r.time_enabled_ns) /
         static_cast<double>(r.time_running_ns);
}

double running_percent(const recorder::CounterReading& r) {
  if (r.time_enabled_ns == 0 || r.time_running_ns >= r.time_enabled_ns) return 100;
  return 100.0 * static_cast<double>(r.time_running_ns) / static_cast<double>(r.time_enabled_ns);
}

Spread mean_and_spread(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) return s;
  const double n = static_cast<double>(values.size());
  for (double v : values) s.mean += v / n;
  if (values.size() < 2 || s.mean == 0) return s;
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  const double variance = squares / (n - 1);
  s.rel_stddev_pct = 100.0 * std::sqrt(variance / n) / s.mean;
  return s;
}

Metric per_second(double count, double task_clock_ns) {
  const double rate = task_clock_ns > 0 ? count / (task_clock_ns / 1e9) : 0;
  if (rate >= 1e9) return {rate / 1e9, "G/sec"};
  if (rate >= 1e6) return {rate / 1e6, "M/sec"};
  if (rate >= 1e3) return {rate / 1e3, "K/sec"};
  return {rate, "/sec"};
}

namespace {

std::optional<Metric> derived_metric(CounterEvent event,
                                     const std::map<CounterEvent, double>& means, double wall_ns) {
  auto mean = [&](CounterEvent e) -> std::optional<double> {
    const auto it = means.find(e);
    return it == means.end() ? std::nullopt : std::optional(it->second);
  };
  const auto value = mean(event);
  const auto task_clock = mean(CounterEvent::kTaskClock);
  auto ratio = [&](CounterEvent denominator, double factor,
                   const char* unit) -> std::optional<Metric> {
    const auto d = mean(denominator);
    if (!d || *d == 0) return std::nullopt;
    return Metric{factor * *value / *d, unit};
  };
  switch (event) {
    case CounterEvent::kTaskClock:
      if (wall_ns <= 0) return std::nullopt;
      return Metric{*value / wall_ns, "CPUs utilized"};
    case CounterEvent::kContextSwitches:
    case CounterEvent::kCpuMigrations:
    case CounterEvent::kPageFaults:
    case CounterEvent::kBranches:
    case CounterEvent::kCacheReferences:
      if (!task_clock || *task_clock == 0) return std::nullopt;
      return per_second(*value, *task_clock);
    case CounterEvent::kCycles:
      // cycles per ns of CPU time: GHz.
      return ratio(CounterEvent::kTaskClock, 1.0, "GHz");
    case CounterEvent::kInstructions: return ratio(CounterEvent::kCycles, 1.0, "insn per cycle");
    case CounterEvent::kBranchMisses:
      return ratio(CounterEvent::kBranches, 100.0, "% of all branches");
    case CounterEvent::kCacheMisses:
      return ratio(CounterEvent::kCacheReferences, 100.0, "% of all cache refs");
  }
  return std::nullopt;
}

}  // namespace

StatSummary summarize(const std::vector<recorder::Counts>& runs) {
  StatSummary summary;
  summary.runs = runs.size();
  if (runs.empty()) return summary;
  std::vector<double> walls;
  walls.reserve(runs.size());
  for (const auto& run : runs) walls.push_back(run.wall_s);
  summary.wall_s = mean_and_spread(walls);

  const auto& events = runs.front().events;
  std::map<CounterEvent, double> means;
  for (size_t e = 0; e < events.size(); ++e) {
    CounterSummary c{events[e], {}, 0, false, std::nullopt};
    std::vector<double> values;
    for (const auto& run : runs) {
      const recorder::CounterReading& r = run.totals.at(e);
      values.push_back(scaled_value(r));
      c.running_pct += running_percent(r) / static_cast<double>(runs.size());
      c.counted = c.counted || r.time_running_ns > 0;
    }
    c.value = mean_and_spread(values);
    if (c.counted) means[events[e]] = c.value.mean;
    summary.counters.push_back(c);
  }
  for (auto& c : summary.counters) {
    if (c.counted) c.metric = derived_metric(c.event, means, summary.wall_s.mean * 1e9);
  }
  return summary;
}

}  // namespace sprof::cli
