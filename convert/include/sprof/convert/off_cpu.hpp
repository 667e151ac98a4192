// sprof/convert/off_cpu.hpp
//
// Off-CPU samples (docs/firefox-profiler-format.md, "Off-CPU samples"): while a thread is blocked —
// switched out voluntarily, PERF_RECORD_SWITCH(out) without PERF_RECORD_MISC_SWITCH_OUT_PREEMPT —
// the profile gets samples with the stack the thread blocked with (taken by the context-switch
// event at switch-out), a leaf frame in the Idle category and a CPU delta of 0, so wall-clock views
// show where threads wait and the UI's / profiler-cli's idle filter can hide them.
//
// Sample times: the points of the sampling grid `origin + k * interval` inside the blocked
// interval [switch-out, switch-in). A grid, rather than "one sample at switch-out", keeps a
// thread that blocks 100 000 times a second for microseconds from adding 100 000 samples: like a
// wall-clock sampler, an interval shorter than the sampling interval gets a sample only if it
// spans a grid point.
//
// Size: Gecko samples have no weights (docs/firefox-profiler-format.md, "samples"), so a long sleep
// costs one sample per interval. To keep profiles sane the first `kDenseOffCpuSamples` grid points
// of an interval are all used (100 ms at 1 kHz: a thread that blocks in short waits is represented
// exactly); after that only every 10th, from 1000 on every 100th, and so on — about 90 samples per
// decade of duration, ~330 for a 60 s sleep at 1 kHz. Long sleeps therefore weigh less than
// their wall-clock share in call trees; the activity graph stays right (delta / elapsed).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sprof/perf/records.hpp"

namespace sprof::convert {

inline constexpr uint64_t kDenseOffCpuSamples = 100;

struct SampleGrid {
  uint64_t origin_ns = 0;    // grid point 0 (the profile's time origin)
  uint64_t interval_ns = 1;  // the sampling interval
};

// Appends to `out` the off-CPU sample times for a thread blocked during [since_ns, until_ns),
// ascending, thinned as described above.
void off_cpu_sample_times(uint64_t since_ns, uint64_t until_ns, const SampleGrid& grid,
                          std::vector<uint64_t>& out);

// Per-thread off-CPU state, kept by the converter with the thread's profile tables (stack
// indexes refer to that profile thread).
struct OffCpuState {
  struct Blocked {
    std::optional<uint32_t> stack;  // leaf frame in the Idle category
    uint64_t since_ns = 0;          // switch-out
  };
  // The latest context-switch sample, waiting for the switch record that says whether the
  // thread blocked (voluntary) or was preempted. Cleared by every switch record. Kept raw:
  // unwinding it is only worth it when the thread blocked, and most switches of a busy thread
  // are preemptions.
  std::optional<perf::SampleRecord> pending;
  // Set while the thread is blocked.
  std::optional<Blocked> blocked;
  // The stack of the latest on-CPU sample: the final sample at exit carries the CPU used after it.
  std::optional<uint32_t> last_on_cpu_stack;
};

}  // namespace sprof::convert
