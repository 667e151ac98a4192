// Burns a fixed amount of CPU time (argv[1] milliseconds, default 300) in a named function, so a
// sampling test sees samples whatever the machine's speed.
#include <time.h>

#include <cstdlib>

namespace {

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

__attribute__((noinline)) unsigned long busy_loop_work(double budget_ms) {
  volatile unsigned long acc = 0;
  const double start = cpu_ms();
  while (cpu_ms() - start < budget_ms) {
    for (int i = 0; i < 10000; ++i) acc = acc + static_cast<unsigned long>(i) * 2654435761u;
  }
  return acc;
}

int main(int argc, char** argv) {
  const double budget = argc > 1 ? std::atof(argv[1]) : 300.0;
  return busy_loop_work(budget) == 1 ? 1 : 0;
}
