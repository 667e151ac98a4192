// Finds moments when this thread made no progress although it was never switched out: it spins
// reading CLOCK_MONOTONIC, and wherever two reads are more than 0.3 ms apart with no context
// switch in between (getrusage), prints the gap and how far the thread's own CPU clock moved over
// it. On a VM, a gap the thread clock leaves out is the host running something else (steal);
// cpu_accounting.hpp explains why sprof needs to know. Run it alone, under load, and under
// `sprof record`:  build/bench/sprof_stall_probe SECONDS
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

long long now_ns(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

long switches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw + usage.ru_nivcsw;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
  constexpr long long kGapNs = 300'000;
  const long long start = now_ns(CLOCK_MONOTONIC);
  long long previous = start;
  long long previous_cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
  long switched = switches();
  int gaps = 0;
  double gap_ms = 0, counted_ms = 0;
  while (previous - start < static_cast<long long>(seconds * 1e9)) {
    const long long t = now_ns(CLOCK_MONOTONIC);
    const long long cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (t - previous > kGapNs) {
      const long now_switched = switches();
      if (now_switched == switched) {
        ++gaps;
        gap_ms += static_cast<double>(t - previous) / 1e6;
        counted_ms += static_cast<double>(cpu - previous_cpu) / 1e6;
        std::printf("gap %.3f ms with no switch; the thread clock moved %.3f ms\n",
                    static_cast<double>(t - previous) / 1e6,
                    static_cast<double>(cpu - previous_cpu) / 1e6);
      }
      switched = now_switched;
    }
    previous = t;
    previous_cpu = cpu;
  }
  std::printf("%d gaps over %.1f s: %.3f ms, of which the thread clock counted %.3f ms\n", gaps,
              seconds, gap_ms, counted_ms);
  return 0;
}
