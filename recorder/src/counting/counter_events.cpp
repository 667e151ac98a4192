// The events `sprof stat` counts: perf's names, their groups and their perf_event_attr codes.
#include <linux/perf_event.h>

#include "sprof/recorder/counting.hpp"

namespace sprof::recorder {

const std::vector<std::pair<std::string, CounterEvent>>& counter_events() {
  static const std::vector<std::pair<std::string, CounterEvent>> events = {
      {"task-clock", CounterEvent::kTaskClock},
      {"context-switches", CounterEvent::kContextSwitches},
      {"cpu-migrations", CounterEvent::kCpuMigrations},
      {"page-faults", CounterEvent::kPageFaults},
      {"cycles", CounterEvent::kCycles},
      {"instructions", CounterEvent::kInstructions},
      {"branches", CounterEvent::kBranches},
      {"branch-misses", CounterEvent::kBranchMisses},
      {"cache-references", CounterEvent::kCacheReferences},
      {"cache-misses", CounterEvent::kCacheMisses},
  };
  return events;
}

std::string counter_event_name(CounterEvent event) {
  for (const auto& [name, e] : counter_events()) {
    if (e == event) return name;
  }
  return "unknown";
}

int counter_group(CounterEvent event) {
  switch (event) {
    // Software counters are never multiplexed; one group keeps them on one schedule anyway.
    case CounterEvent::kTaskClock:
    case CounterEvent::kContextSwitches:
    case CounterEvent::kCpuMigrations:
    case CounterEvent::kPageFaults: return 0;
    // Each ratio's two counters together, and only two per group, so that a group fits even a
    // PMU with few general-purpose counters.
    case CounterEvent::kCycles:
    case CounterEvent::kInstructions: return 1;
    case CounterEvent::kBranches:
    case CounterEvent::kBranchMisses: return 2;
    case CounterEvent::kCacheReferences:
    case CounterEvent::kCacheMisses: return 3;
  }
  return 0;
}

std::pair<uint32_t, uint64_t> counter_type_config(CounterEvent event) {
  switch (event) {
    case CounterEvent::kTaskClock: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK};
    case CounterEvent::kContextSwitches:
      return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES};
    case CounterEvent::kCpuMigrations: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS};
    case CounterEvent::kPageFaults: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS};
    case CounterEvent::kCycles: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES};
    case CounterEvent::kInstructions: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS};
    case CounterEvent::kBranches: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS};
    case CounterEvent::kBranchMisses: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES};
    case CounterEvent::kCacheReferences:
      return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES};
    case CounterEvent::kCacheMisses: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES};
  }
  return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK};
}

CounterReading& CounterReading::operator+=(const CounterReading& o) {
  value += o.value;
  time_enabled_ns += o.time_enabled_ns;
  time_running_ns += o.time_running_ns;
  return *this;
}

// Saturating: an owner's total less its threads' rows cannot go below zero, even if the kernel
// counted a thread's last tick into its row after the total was read.
CounterReading& CounterReading::operator-=(const CounterReading& o) {
  auto sub = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
  value = sub(value, o.value);
  time_enabled_ns = sub(time_enabled_ns, o.time_enabled_ns);
  time_running_ns = sub(time_running_ns, o.time_running_ns);
  return *this;
}

}  // namespace sprof::recorder
