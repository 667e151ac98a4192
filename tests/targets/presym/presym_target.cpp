// Runs for SECONDS (default 1) of its own CPU time in the code a self-contained profile must
// name (CPU time, not wall time: on a busy machine a second of wall time may hold too few samples
// to reach every frame the tests look for): its own forced
// inline chain (sprof_target::inline_chain_outer with chain_a/b/c inlined, inline_chain.cpp),
// the vdso (clock_gettime) and the kernel (a short sleep every few milliseconds, recorded as
// off-CPU samples).
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "inline_chain.hpp"

namespace {

double seconds_of(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double now_s() { return seconds_of(CLOCK_MONOTONIC); }  // the vdso
double cpu_s() { return seconds_of(CLOCK_PROCESS_CPUTIME_ID); }

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  const double start = cpu_s();
  long total = 0;
  int round = 0;
  for (double t = start; t - start < seconds; t = cpu_s()) {
    for (int i = 0; i < 20000; ++i) total += sprof_target::inline_chain_outer(i);
    for (int i = 0; i < 200; ++i) total += static_cast<long>(now_s());
    if (++round % 400 == 0) {
      const timespec pause{0, 1000000};
      nanosleep(&pause, nullptr);
    }
  }
  std::printf("%ld\n", total);
  return 0;
}
