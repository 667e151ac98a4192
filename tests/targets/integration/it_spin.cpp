// it_spin SECONDS [EXIT_CODE]: spins in spin_leaf <- spin_middle <- main for SECONDS of its own
// CPU time (so the samples it gets do not depend on how busy the machine is), then exits with
// EXIT_CODE (default 0). SECONDS < 0 spins until killed.
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

__attribute__((noinline)) unsigned long spin_leaf(unsigned long x) {
  for (int i = 0; i < 100000; ++i) x = x * 2862933555777941757UL + 3037000493UL;
  return x;
}

__attribute__((noinline)) unsigned long spin_middle(double seconds) {
  const double end = cpu_seconds() + seconds;
  unsigned long x = 1;
  while (seconds < 0 || cpu_seconds() < end) x = spin_leaf(x);
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.5;
  const int code = argc > 2 ? std::atoi(argv[2]) : 0;
  const unsigned long x = spin_middle(seconds);
  std::printf("it_spin done %lu\n", x & 1);
  return code;
}
