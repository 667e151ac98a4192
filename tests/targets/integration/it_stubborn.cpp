// it_stubborn SECONDS: ignores SIGINT and SIGTERM (as some servers and shells do), says "ready"
// and spins in stubborn_spin for SECONDS (< 0: until killed). Only SIGKILL ends it early.
#include <signal.h>

#include <cstdio>
#include <cstdlib>

#include "spin.hpp"

namespace {

__attribute__((noinline)) unsigned long stubborn_spin(double seconds) {
  if (seconds >= 0) return spin_for_seconds(seconds);
  for (;;) spin_for_seconds(1.0);
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  std::printf("ready\n");
  std::fflush(stdout);
  const unsigned long x = stubborn_spin(argc > 1 ? std::atof(argv[1]) : -1);
  std::printf("it_stubborn done %lu\n", x & 1);
  return 0;
}
