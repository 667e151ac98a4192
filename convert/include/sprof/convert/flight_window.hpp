// sprof/convert/flight_window.hpp
//
// The flight recorder (`record --flight-recorder WINDOW`, docs/flight-recorder.md) keeps only
// the last WINDOW of a recording: every WINDOW/8 the converter drops what lies wholly before
// now - WINDOW (`ProfileConverter::evict_before`), and a profile of the window is cut on request
// (`ProfileConverter::window`). What goes are samples, markers, allocation rows and counter
// samples, which grow with time; the per-thread tables of strings, frames and stacks stay,
// bounded by the distinct stacks seen, so a stack seen again keeps its index.
//
// This file holds the trimming and the window's meta.sprof keys; no state.
#pragma once

#include <cstdint>

#include "sprof/profile/profile.hpp"

namespace sprof::convert {

// What trimming dropped from a profile.
struct WindowTrim {
  uint64_t samples = 0;
  uint64_t markers = 0;
  uint64_t allocations = 0;      // native-allocation rows
  uint64_t counter_samples = 0;  // memory counters' samples

  WindowTrim& operator+=(const WindowTrim& o);
};

// Drops from every thread and process of `profile` what lies wholly before `start_ms` (profile
// time).
WindowTrim trim_before(profile::Profile& profile, double start_ms);

// Removes the threads that ended before `start_ms` with nothing left in them, and the process
// images (but the top-level one) that ended before it with no thread left: a system-wide window
// would otherwise list every process that ever ran. Only for a profile nothing indexes any more
// (a window's copy, or a finished profile): the converter's own refers to its images and threads
// by position.
void drop_ended_before(profile::Profile& profile, double start_ms);

// A window's time range and what the recording dropped before it, as meta.sprof keys:
// flightWindowMs (the configured window), flightStartMs / flightEndMs (the range the profile
// covers, in its own time, as profilingStartTime / profilingEndTime), flightDroppedSamples,
// flightDroppedMarkers, flightDroppedAllocations, flightDroppedCounterSamples. Also sets the
// profiling range, which the Firefox Profiler's timeline starts and ends at.
void describe_window(profile::Meta& meta, double window_ms, double start_ms, double end_ms,
                     const WindowTrim& dropped);

}  // namespace sprof::convert
