// What an event's attr says about its records, as a recorded file's attrs would say it.
#include "sprof/perf/event_attr.hpp"

#include <doctest/doctest.h>

namespace perf = sprof::perf;

namespace {

perf_event_attr software(uint64_t config) {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  return attr;
}

}  // namespace

TEST_CASE("events are named as perf names them") {
  perf_event_attr cycles{};
  cycles.type = PERF_TYPE_HARDWARE;
  cycles.config = PERF_COUNT_HW_CPU_CYCLES;
  CHECK(perf::event_name(cycles) == "cycles");
  CHECK(perf::event_name(software(PERF_COUNT_SW_CPU_CLOCK)) == "cpu-clock");
  CHECK(perf::event_name(software(PERF_COUNT_SW_TASK_CLOCK)) == "task-clock");
  CHECK(perf::event_name(software(PERF_COUNT_SW_CONTEXT_SWITCHES)) == "context-switches");
  CHECK(perf::event_name(software(PERF_COUNT_SW_PAGE_FAULTS)) == "page-faults");
  perf_event_attr hardware = cycles;
  hardware.config = PERF_COUNT_HW_INSTRUCTIONS;
  CHECK(perf::event_name(hardware) == "instructions");
  hardware.config = PERF_COUNT_HW_CACHE_MISSES;
  CHECK(perf::event_name(hardware) == "cache-misses");
  CHECK_FALSE(perf::period_is_cpu_ns(hardware));
  CHECK_FALSE(perf::period_is_cpu_ns(software(PERF_COUNT_SW_PAGE_FAULTS)));
  perf_event_attr tracepoint{};
  tracepoint.type = PERF_TYPE_TRACEPOINT;
  tracepoint.config = 316;
  CHECK(perf::event_name(tracepoint) == "type 2, config 316");
}

TEST_CASE("the clock events' periods are CPU nanoseconds, and set their rate in period mode") {
  perf_event_attr clock = software(PERF_COUNT_SW_CPU_CLOCK);
  CHECK(perf::period_is_cpu_ns(clock));
  CHECK(perf::period_is_cpu_ns(software(PERF_COUNT_SW_TASK_CLOCK)));
  CHECK_FALSE(perf::period_is_cpu_ns(software(PERF_COUNT_SW_CONTEXT_SWITCHES)));

  clock.freq = 1;
  clock.sample_freq = 4000;
  CHECK(perf::sample_rate_hz(clock) == 4000);
  clock.freq = 0;
  clock.sample_period = 250'000;  // ns: perf record -c 250000 -e cpu-clock
  CHECK(perf::sample_rate_hz(clock) == 4000);

  perf_event_attr cycles{};
  cycles.type = PERF_TYPE_HARDWARE;
  cycles.config = PERF_COUNT_HW_CPU_CYCLES;
  cycles.sample_period = 1'000'000;  // cycles: no rate to tell
  CHECK(perf::sample_rate_hz(cycles) == 0);
}

TEST_CASE("samples with user registers and a stack copy are unwound, callchains alone are not") {
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
  CHECK_FALSE(perf::samples_user_stacks(attr));
  attr.sample_type |= PERF_SAMPLE_REGS_USER;
  CHECK_FALSE(perf::samples_user_stacks(attr));
  attr.sample_type |= PERF_SAMPLE_STACK_USER;
  CHECK(perf::samples_user_stacks(attr));
}
