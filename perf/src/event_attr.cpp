#include "sprof/perf/event_attr.hpp"

namespace sprof::perf {

std::string event_name(const perf_event_attr& attr) {
  if (attr.type == PERF_TYPE_HARDWARE) {
    switch (attr.config) {
      case PERF_COUNT_HW_CPU_CYCLES: return "cycles";
      case PERF_COUNT_HW_INSTRUCTIONS: return "instructions";
      case PERF_COUNT_HW_CACHE_MISSES: return "cache-misses";
      default: break;
    }
  }
  if (attr.type == PERF_TYPE_SOFTWARE) {
    switch (attr.config) {
      case PERF_COUNT_SW_CPU_CLOCK: return "cpu-clock";
      case PERF_COUNT_SW_TASK_CLOCK: return "task-clock";
      case PERF_COUNT_SW_PAGE_FAULTS: return "page-faults";
      case PERF_COUNT_SW_CONTEXT_SWITCHES: return "context-switches";
      case PERF_COUNT_SW_DUMMY: return "dummy";
      default: break;
    }
  }
  return "type " + std::to_string(attr.type) + ", config " + std::to_string(attr.config);
}

bool period_is_cpu_ns(const perf_event_attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE &&
         (attr.config == PERF_COUNT_SW_CPU_CLOCK || attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

double sample_rate_hz(const perf_event_attr& attr) {
  // sample_freq and sample_period share one union field; `freq` says which it is.
  if (attr.freq) return static_cast<double>(attr.sample_freq);
  if (period_is_cpu_ns(attr) && attr.sample_period != 0) {
    return 1e9 / static_cast<double>(attr.sample_period);
  }
  return 0;
}

bool samples_user_stacks(const perf_event_attr& attr) {
  const uint64_t both = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  return (attr.sample_type & both) == both;
}

}  // namespace sprof::perf
