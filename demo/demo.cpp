// sprof-demo: a small program to profile. Three named worker threads do different kinds of
// CPU work (libm math, sorting through libstdc++, a hand-written sieve) while the main thread
// waits and then does some work of its own, so the profile has several tracks with distinct
// call trees. Runs for about `argv[1]` seconds (default 2).
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

__attribute__((noinline)) double integrate_waves(int steps) {
  double sum = 0;
  for (int i = 0; i < steps; ++i) {
    const double x = i * 1e-4;
    sum += std::sin(x) * std::cos(x / 3) + std::sqrt(x + 1);
  }
  return sum;
}

__attribute__((noinline)) size_t sort_random_numbers(std::mt19937& rng, size_t n) {
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = rng();
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end() ? v.size() : 0;
}

__attribute__((noinline)) size_t sieve_primes(size_t limit) {
  std::vector<bool> composite(limit + 1);
  size_t count = 0;
  for (size_t i = 2; i <= limit; ++i) {
    if (composite[i]) continue;
    ++count;
    for (size_t j = i * i; j <= limit; j += i) composite[j] = true;
  }
  return count;
}

void run_for(double seconds, const char* name, auto&& work) {
  pthread_setname_np(pthread_self(), name);
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  volatile double sink = 0;
  while (Clock::now() < end) sink = sink + static_cast<double>(work());
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  std::printf("sprof-demo: working for %.1f s on 3 threads\n", seconds);
  std::thread math([&] { run_for(seconds, "math", [] { return integrate_waves(200000); }); });
  std::thread sorter([&] {
    std::mt19937 rng(42);
    run_for(seconds, "sorter", [&] { return sort_random_numbers(rng, 100000); });
  });
  std::thread sieve([&] { run_for(seconds, "sieve", [] { return sieve_primes(2000000); }); });
  math.join();
  sorter.join();
  sieve.join();
  std::printf("sprof-demo: done\n");
  return 0;
}
