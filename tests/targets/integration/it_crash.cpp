// it_crash SECONDS: spins in `work_before_crash` for SECONDS, then dereferences null (SIGSEGV).
#include <cstdlib>
#include <ctime>

namespace {

__attribute__((noinline)) unsigned long work_before_crash(double seconds) {
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

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  volatile unsigned long x = work_before_crash(seconds);
  volatile int* volatile null_pointer = nullptr;
  *null_pointer = static_cast<int>(x);
  return 0;
}
