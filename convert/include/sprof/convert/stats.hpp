// sprof/convert/stats.hpp
//
// Lossy-but-normal events of a recording. None of them is fatal; all are counted, printed in
// the summary and written to the profile's meta (meta.sprof).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace sprof::convert {

inline constexpr size_t kUnwindStopKinds = 8;  // = unwind::kUnwindStopCount

struct RecordingStats {
  std::string event_name;         // "cycles" or "cpu-clock"
  uint64_t samples = 0;           // samples written to the profile
  uint64_t off_cpu_samples = 0;   // of which off-CPU (blocked thread, Idle leaf, 0 CPU)
  uint64_t lost_records = 0;      // PERF_RECORD_LOST: records the kernel dropped (ring full)
  uint64_t lost_samples = 0;      // PERF_RECORD_LOST_SAMPLES
  uint64_t throttle_events = 0;   // PERF_RECORD_THROTTLE: the kernel lowered the rate
  uint64_t malformed_records = 0; // records that failed to parse (skipped)
  uint64_t unknown_records = 0;   // record types sprof does not use (skipped)
  uint64_t processes = 0;         // distinct pids seen
  uint64_t threads = 0;           // distinct tids seen
  uint64_t unreadable_modules = 0;
  // Unwinding (dwarf mode): samples whose user stack stopped for each reason; index is
  // unwind::UnwindStop. kComplete counts stacks that reached the thread's entry.
  std::array<uint64_t, kUnwindStopKinds> unwind_stops{};
  uint64_t unwound_samples = 0;
  // CPU time of sprof's reading thread while recording: reading the rings, parsing, unwinding
  // and building the profile (thread CPU time, so moments when the target preempts sprof do not
  // count). Unwinding alone is measured by bench/unwind.cpp.
  uint64_t reader_cpu_ns = 0;
};

// "12 stack-truncated, 3 no-cfi": the samples whose user stack stopped before the thread's
// entry, by reason; empty when every unwound stack was complete.
std::string describe_incomplete_unwinds(const RecordingStats& stats);

}  // namespace sprof::convert
