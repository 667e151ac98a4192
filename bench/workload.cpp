// bench_workload THREADS UNITS: a fixed amount of CPU-bound work (libm math, std::sort through
// libstdc++, a hand-written loop) split over THREADS threads, compiled -O2 -fomit-frame-pointer
// like typical release code. Fixed work, not fixed time, so profiler overhead shows up as wall
// and CPU time.
#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

__attribute__((noinline)) double waves(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += std::sin(i * 1e-3) * std::cos(i * 2e-3) + std::exp(-i * 1e-6);
  return s;
}

__attribute__((noinline)) uint32_t sorted_median(std::mt19937& rng, size_t n) {
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = rng();
  std::sort(v.begin(), v.end());
  return v[n / 2];
}

__attribute__((noinline)) uint64_t mix(uint64_t x, int rounds) {
  for (int i = 0; i < rounds; ++i) x = (x ^ (x >> 31)) * 0x9E3779B97F4A7C15ULL + 7;
  return x;
}

double work_unit(std::mt19937& rng) {
  return waves(20000) + sorted_median(rng, 20000) + static_cast<double>(mix(rng(), 200000) & 1);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 4;
  const int units = argc > 2 ? std::atoi(argv[2]) : 200;
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  std::vector<double> sinks(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      pthread_setname_np(pthread_self(), ("work-" + std::to_string(t)).c_str());
      std::mt19937 rng(static_cast<unsigned>(t));
      double s = 0;
      for (int u = 0; u < units; ++u) s += work_unit(rng);
      sinks[static_cast<size_t>(t)] = s;
    });
  }
  for (auto& p : pool) p.join();
  double total = 0;
  for (double s : sinks) total += s;
  // The workload's own CPU time, so a benchmark can tell it from the profiler's.
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  const double cpu_s = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                       static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec) * 1e-6;
  timespec end{};
  clock_gettime(CLOCK_MONOTONIC, &end);
  std::printf("workload cpu_s %.4f result %.3f end_monotonic_ns %lld\n", cpu_s, total,
              static_cast<long long>(end.tv_sec) * 1000000000LL + end.tv_nsec);
  std::fflush(stdout);
  return 0;
}
