// it_unwind THREADS SECONDS: release-style code (-O2 -fomit-frame-pointer) whose hot paths run in
// libraries without frame pointers: libm (sin/cos/exp) and libstdc++ (std::sort calling back
// into a comparator here). Each thread "calc-N" runs
//   calc_thread -> outer_level -> middle_level -> {libm_heavy -> libm, sort_heavy -> std::sort
//   -> compare_values}
// so a test can check that every sample unwinds to the thread entry through these callers.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_stop{false};

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
  const double a = libm_heavy(20000);
  const double b = sort_heavy(2000 + round % 7);
  return a + b + 1;
}

__attribute__((noinline)) double outer_level(int round) { return middle_level(round) * 2 + 1; }

__attribute__((noinline)) void calc_thread(int index) {
  pthread_setname_np(pthread_self(), ("calc-" + std::to_string(index)).c_str());
  volatile double sink = 0;
  for (int round = 0; !g_stop.load(std::memory_order_relaxed); ++round) {
    sink = sink + outer_level(round);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(calc_thread, i);
  timespec ts{static_cast<time_t>(seconds), static_cast<long>((seconds - static_cast<long>(seconds)) * 1e9)};
  nanosleep(&ts, nullptr);
  g_stop = true;
  for (auto& t : pool) t.join();
  return 0;
}
