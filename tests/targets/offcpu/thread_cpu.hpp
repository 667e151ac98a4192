// Thread CPU time and CPU-time-bounded busy work for the off-CPU test programs.
#pragma once

#include <cstdint>
#include <ctime>

inline uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// Spins until this thread has used `cpu_ns` more CPU time (not wall time: the amount of work is
// the same however the threads share the CPUs).
inline uint64_t burn_cpu_ns(uint64_t cpu_ns) {
  const uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;
  uint64_t x = 1;
  while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end) {
    for (int i = 0; i < 2000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  return x;
}
