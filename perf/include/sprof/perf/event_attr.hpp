// sprof/perf/event_attr.hpp
//
// What an event's `perf_event_attr` says about its records: the event's name, what a sample's
// period measures, how often it samples, and whether its samples carry user registers and stack
// copies to unwind. The same facts whether the attr was just passed to perf_event_open or read
// back from a recorded file.
#pragma once

#include <linux/perf_event.h>

#include <string>

namespace sprof::perf {

// perf's names ("cycles", "instructions", "cache-misses", "cpu-clock", "task-clock",
// "page-faults", "context-switches"); "type T, config C" for others.
std::string event_name(const perf_event_attr& attr);

// A sample's period is the CPU time in ns since the previous one: the software clock events
// (cpu-clock, task-clock) count nanoseconds.
bool period_is_cpu_ns(const perf_event_attr& attr);

// Samples per second: attr.sample_freq in frequency mode; for a clock event with a fixed period,
// 1e9 / sample_period; 0 when unknown (a fixed period of any other event).
double sample_rate_hz(const perf_event_attr& attr);

// The samples copy the user registers and stack (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER):
// user stacks are unwound from them (DWARF mode) rather than read from the callchain.
bool samples_user_stacks(const perf_event_attr& attr);

}  // namespace sprof::perf
