// sprof/core/clock.hpp
//
// One reading of a POSIX clock in nanoseconds: CLOCK_MONOTONIC for the recording's timeline
// (perf timestamps use it too), CLOCK_REALTIME for the profile's start date,
// CLOCK_THREAD_CPUTIME_ID for what the calling thread itself cost.
#pragma once

#include <time.h>

#include <cstdint>

namespace sprof {

inline uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace sprof
