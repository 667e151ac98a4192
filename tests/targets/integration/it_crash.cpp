// it_crash SECONDS: spins in `work_before_crash` for SECONDS, then dereferences null (SIGSEGV).
#include <cstdlib>

#include "spin.hpp"

namespace {

__attribute__((noinline)) unsigned long work_before_crash(double seconds) {
  return spin_for_seconds(seconds);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  volatile unsigned long x = work_before_crash(seconds);
  volatile int* volatile null_pointer = nullptr;
  *null_pointer = static_cast<int>(x);
  return 0;
}
