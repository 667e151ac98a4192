#include "stat_report.hpp"

#include <cstdio>
#include <string_view>

namespace sprof::cli {

namespace {

using recorder::CounterEvent;

std::string printf_string(const char* format, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// task-clock is kept in ns and shown in msec, as perf does.
bool is_time(CounterEvent e) { return e == CounterEvent::kTaskClock; }

std::string counter_line(const CounterSummary& c, size_t runs) {
  const std::string name = recorder::counter_event_name(c.event);
  if (!c.counted) return printf_string("%18s      %-25s\n", "<not counted>", name.c_str());
  std::string line = is_time(c.event)
                         ? printf_string("%18.2f msec %-25s", c.value.mean / 1e6, name.c_str())
                         : printf_string("%18.0f      %-25s", c.value.mean, name.c_str());
  if (c.metric) {
    line += printf_string(" # %8.3f %-20s", c.metric->value, c.metric->unit.c_str());
  } else {
    line += printf_string(" %-31s", "");
  }
  if (runs > 1) line += printf_string(" ( +- %5.2f%% )", c.value.rel_stddev_pct);
  // Multiplexed: the value was scaled from this share of the time.
  if (c.running_pct < 99.995) line += printf_string(" (%.2f%%)", c.running_pct);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

std::string missing_lines(const std::vector<recorder::MissingCounter>& missing) {
  std::string out;
  for (const auto& m : missing) {
    out += printf_string("%18s      %s\n", "<not supported>",
                         recorder::counter_event_name(m.event).c_str());
  }
  if (missing.empty()) return out;
  // One reason per line, naming the counters it covers (usually one: no PMU).
  out += "\n";
  std::vector<std::string> reasons;
  for (const auto& m : missing) {
    if (std::find(reasons.begin(), reasons.end(), m.reason) == reasons.end()) {
      reasons.push_back(m.reason);
    }
  }
  for (const auto& reason : reasons) {
    std::string names;
    for (const auto& m : missing) {
      if (m.reason == reason)
        names += (names.empty() ? "" : ", ") + recorder::counter_event_name(m.event);
    }
    out += " Not counted: " + names + ": " + reason + "\n";
  }
  return out;
}

std::string thread_table(const recorder::Counts& run) {
  std::string out = "\n Per thread:\n";
  out += printf_string("%8s %8s  %-16s", "pid", "tid", "name");
  for (CounterEvent e : run.events) {
    const std::string name = recorder::counter_event_name(e) + (is_time(e) ? " (msec)" : "");
    out += printf_string(" %*s", static_cast<int>(std::max<size_t>(name.size(), 10)), name.c_str());
  }
  out += "\n";
  for (const auto& t : run.threads) {
    out += printf_string("%8d %8d  %-16s", t.pid, t.tid, t.name.c_str());
    for (size_t e = 0; e < run.events.size(); ++e) {
      const std::string name =
          recorder::counter_event_name(run.events[e]) + (is_time(run.events[e]) ? " (msec)" : "");
      const int width = static_cast<int>(std::max<size_t>(name.size(), 10));
      const double v = scaled_value(t.readings[e]);
      out += is_time(run.events[e]) ? printf_string(" %*.2f", width, v / 1e6)
                                    : printf_string(" %*.0f", width, v);
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string format_stat_report(const StatTarget& target, const StatSummary& summary,
                               const std::vector<recorder::Counts>& runs) {
  std::string out = "\n Performance counter stats for " + target.description;
  if (summary.runs > 1) out += printf_string(" (%zu runs)", summary.runs);
  out += ":\n\n";
  if (!runs.empty() && runs.back().user_only) {
    out += " (user space only: kernel counting refused by perf_event_paranoid)\n\n";
  }
  for (const auto& c : summary.counters) out += counter_line(c, summary.runs);
  if (!runs.empty()) out += missing_lines(runs.back().missing);
  out += "\n";
  out += summary.runs > 1 ? printf_string("%18.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )\n",
                                          summary.wall_s.mean,
                                          summary.wall_s.mean * summary.wall_s.rel_stddev_pct / 100,
                                          summary.wall_s.rel_stddev_pct)
                          : printf_string("%18.9f seconds time elapsed\n", summary.wall_s.mean);
  if (summary.runs == 1 && !runs.empty()) {
    out += thread_table(runs.back());
    if (runs.back().lost_records > 0) {
      out += printf_string(
          "\n %llu per-thread records were lost: some threads' counts are in "
          "their creator's row\n",
          static_cast<unsigned long long>(runs.back().lost_records));
    }
  }
  return out + "\n";
}

}  // namespace sprof::cli
