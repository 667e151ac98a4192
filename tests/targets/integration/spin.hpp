// Busy work for a given wall time, inlined into each target's own named function so that the
// function a test looks for is the sampled leaf.
#pragma once

#include <ctime>

inline unsigned long spin_for_seconds(double seconds) {
  timespec start{}, now{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned long x = 1;
  do {
    for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005UL + 1;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (static_cast<double>(now.tv_sec - start.tv_sec) +
               static_cast<double>(now.tv_nsec - start.tv_nsec) * 1e-9 <
           seconds);
  return x;
}
