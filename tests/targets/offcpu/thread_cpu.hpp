// Thread CPU time and CPU-time-bounded busy work for the off-CPU test programs.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>

inline uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// How long this thread has waited on a run queue, runnable but not running (run_delay, the second
// field of /proc/thread-self/schedstat, in ns); nullopt where the kernel has no schedstat
// (CONFIG_SCHED_INFO off).
inline std::optional<uint64_t> run_delay_ns() {
  FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
  if (f == nullptr) return std::nullopt;
  unsigned long long exec_ns = 0, delay_ns = 0;
  const bool read = std::fscanf(f, "%llu %llu", &exec_ns, &delay_ns) == 2;
  std::fclose(f);
  if (!read) return std::nullopt;
  return delay_ns;
}

// The steal this thread's burn_cpu_ns calls saw so far: on a VM the host may stop a vCPU while a
// thread runs on it, and the thread's clock leaves that time out (paravirt steal accounting)
// where perf's switch records, which see only when the guest switched, count it as time on CPU.
// A thread that never blocks is, at every moment, either on a CPU or waiting on a run queue, so
// over a burn: wall time = run queue wait + time on CPU, and time on CPU = CPU clock + steal.
inline thread_local uint64_t steal_while_burning_ns = 0;

// Spins until this thread has used `cpu_ns` more CPU time (not wall time: the amount of work is
// the same however the threads share the CPUs), adding the steal it saw to
// steal_while_burning_ns. The reads nest (run queue wait outermost, CPU clock innermost) so that
// the reads themselves never pass for steal.
inline uint64_t burn_cpu_ns(uint64_t cpu_ns) {
  const std::optional<uint64_t> delay_before = run_delay_ns();
  const uint64_t wall_before = clock_ns(CLOCK_MONOTONIC);
  const uint64_t cpu_before = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  const uint64_t end = cpu_before + cpu_ns;
  uint64_t x = 1;
  uint64_t cpu_now = cpu_before;
  while (cpu_now < end) {
    for (int i = 0; i < 2000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    cpu_now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  }
  const uint64_t wall = clock_ns(CLOCK_MONOTONIC) - wall_before;
  const std::optional<uint64_t> delay_after = run_delay_ns();
  if (!delay_before || !delay_after) return x;
  const uint64_t waited = *delay_after - *delay_before;
  const uint64_t ran = cpu_now - cpu_before;
  if (wall > waited + ran) steal_while_burning_ns += wall - waited - ran;
  return x;
}

// The line the tests read of a thread (tests/integration/thread_cpu.hpp, measured_threads):
// "tid cpu_ns name steal_ns switches", `switches` its context switches so far, voluntary or
// not (each one's switch-in is a record that may be late).
inline void print_thread_cpu(long tid, uint64_t cpu_ns, const char* name) {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  std::printf("%ld %llu %s %llu %ld\n", tid, static_cast<unsigned long long>(cpu_ns), name,
              static_cast<unsigned long long>(steal_while_burning_ns),
              usage.ru_nvcsw + usage.ru_nivcsw);
}
