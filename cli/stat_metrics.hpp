// cli/stat_metrics.hpp
//
// `sprof stat`'s numbers, computed the way perf stat computes them (docs/stat.md):
//   - a multiplexed counter is scaled to the whole time it was enabled:
//     value * time_enabled / time_running (the totals are summed over CPUs and tasks first);
//   - with -r N each counter's mean, and its spread as perf prints it: the standard deviation
//     of the mean (sample variance / N, square-rooted) relative to the mean, in percent;
//   - derived metrics from the means: CPUs utilized = task-clock / wall time; software events
//     and branches per second of task-clock; GHz = cycles / task-clock; insn per cycle =
//     instructions / cycles; branch-misses per branches and cache-misses per cache-references.
// Pure: no I/O, so tests check the arithmetic directly.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sprof/recorder/counting.hpp"

namespace sprof::cli {

// value * time_enabled / time_running; 0 when the counter never ran.
double scaled_value(const recorder::CounterReading& reading);
// time_running / time_enabled in percent: below 100 when the kernel multiplexed the counter.
double running_percent(const recorder::CounterReading& reading);

struct Spread {
  double mean = 0;
  double rel_stddev_pct = 0;  // 0 for a single value
};
Spread mean_and_spread(const std::vector<double>& values);

// "# 0.987 CPUs utilized": a value and what it is.
struct Metric {
  double value = 0;
  std::string unit;
};

struct CounterSummary {
  recorder::CounterEvent event;
  Spread value;              // scaled, over the runs
  double running_pct = 100;  // mean over the runs
  bool counted = false;      // false: it never ran in any run ("<not counted>")
  std::optional<Metric> metric;
};

struct StatSummary {
  std::vector<CounterSummary> counters;  // in the order counted
  Spread wall_s;
  size_t runs = 0;
};

// `runs` must be non-empty and count the same events (one session's repeats do).
StatSummary summarize(const std::vector<recorder::Counts>& runs);

// A rate as perf prints it: per second, with K/M/G for thousands, millions, billions.
Metric per_second(double count, double task_clock_ns);

}  // namespace sprof::cli
