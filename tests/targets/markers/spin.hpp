// Busy work for the marker targets, so their threads have samples around the markers.
#pragma once

#include <time.h>

#include <cstdint>

inline uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// Spins on the CPU for `ms` milliseconds.
inline void spin_for_ms(uint64_t ms) {
  const uint64_t until = monotonic_ns() + ms * 1000000ULL;
  volatile uint64_t sink = 0;
  while (monotonic_ns() < until) {
    for (int i = 0; i < 1000; ++i) sink = sink + static_cast<uint64_t>(i);
  }
}
