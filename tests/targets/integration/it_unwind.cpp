// it_unwind THREADS SECONDS [ROUNDS]: release-style code (-O2 -fomit-frame-pointer) whose hot paths
// run in libraries without frame pointers: libm (sin/cos/exp) and libstdc++ (std::sort calling back
// into a comparator here). Each thread "calc-N" runs
//   calc_thread -> outer_level -> middle_level -> {libm_heavy -> libm, sort_heavy -> std::sort
//   -> compare_values}
// so a test can check that every sample unwinds to the thread entry through these callers.
// With ROUNDS, each thread does that many rounds and the program ends (SECONDS is ignored): a
// fixed amount of CPU work, and at the end it prints the CPU time its threads spent in
// libm_heavy, in sort_heavy and in all (each thread's own clock): the truth a profile's split
// is checked against, since on a busy machine the same work costs different CPU time from run to
// run (caches shared with the load).
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "spin.hpp"  // thread_cpu_ns

namespace {

std::atomic<bool> g_stop{false};

// Thread CPU nanoseconds, summed over the calc threads.
std::atomic<long long> g_libm_ns{0}, g_sort_ns{0}, g_thread_ns{0};

__attribute__((noinline)) bool compare_values(double a, double b) {
  return std::fmod(a, 7.0) < std::fmod(b, 7.0);
}

__attribute__((noinline)) double libm_heavy(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += std::sin(i * 1e-3) * std::cos(i * 3e-3) + std::exp(-i * 1e-7);
  return s + 1;  // not a tail position: keeps this frame on the stack
}

__attribute__((noinline)) double sort_heavy(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(i) * 1000;
  std::sort(v.begin(), v.end(), compare_values);
  return v.front() + 1;
}

__attribute__((noinline)) double middle_level(int round) {
  const long long t0 = thread_cpu_ns();
  const double a = libm_heavy(20000);
  const long long t1 = thread_cpu_ns();
  const double b = sort_heavy(2000 + round % 7);
  const long long t2 = thread_cpu_ns();
  g_libm_ns += t1 - t0;
  g_sort_ns += t2 - t1;
  return a + b + 1;
}

__attribute__((noinline)) double outer_level(int round) { return middle_level(round) * 2 + 1; }

__attribute__((noinline)) void calc_thread(int index, long rounds) {
  pthread_setname_np(pthread_self(), ("calc-" + std::to_string(index)).c_str());
  volatile double sink = 0;
  for (long round = 0; rounds > 0 ? round < rounds : !g_stop.load(std::memory_order_relaxed);
       ++round) {
    sink = sink + outer_level(static_cast<int>(round));
  }
  g_thread_ns += thread_cpu_ns();
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  const long rounds = argc > 3 ? std::atol(argv[3]) : 0;
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(calc_thread, i, rounds);
  if (rounds == 0) {
    timespec ts{static_cast<time_t>(seconds),
                static_cast<long>((seconds - static_cast<long>(seconds)) * 1e9)};
    nanosleep(&ts, nullptr);
    g_stop = true;
  }
  for (auto& t : pool) t.join();
  if (rounds > 0) {
    std::printf("it_unwind cpu_ns: libm_heavy=%lld sort_heavy=%lld threads=%lld\n",
                g_libm_ns.load(), g_sort_ns.load(), g_thread_ns.load());
  }
  return 0;
}
