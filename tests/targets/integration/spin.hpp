// Busy work for a given amount of the calling thread's own CPU time, inlined into each target's
// own named function so that the function a test looks for is the sampled leaf. CPU time, not
// wall time: sprof samples CPU time, so a test can expect about SECONDS x rate samples however
// busy the machine is (a wall-time spin gets only its share of a loaded machine's CPUs).
#pragma once

#include <ctime>

// The calling thread's CPU time so far, in nanoseconds.
inline long long thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

inline unsigned long spin_for_seconds(double seconds) {
  const long long end = thread_cpu_ns() + static_cast<long long>(seconds * 1e9);
  unsigned long x = 1;
  do {
    for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005UL + 1;
  } while (thread_cpu_ns() < end);
  return x;
}
