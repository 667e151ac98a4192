// offcpu_cpu_threads LONG LONG_MS SHORT SHORT_MS: LONG threads ("long-0", ...) that each use
// LONG_MS of CPU, then SHORT short-lived threads ("short-0", ...) of SHORT_MS of CPU each, started
// in waves of 8. Every thread prints "tid cpu_ns name" at its end (CLOCK_THREAD_CPUTIME_ID), so
// tests can compare a thread's summed CPU deltas with its real CPU time.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "thread_cpu.hpp"

namespace {

std::mutex print_mutex;
std::atomic<uint64_t> sink{0};

__attribute__((noinline)) void busy_thread(const std::string& name, uint64_t cpu_ns) {
  pthread_setname_np(pthread_self(), name.c_str());
  sink += burn_cpu_ns(cpu_ns);
  const uint64_t used = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  std::lock_guard<std::mutex> lock(print_mutex);
  std::printf("%ld %llu %s\n", static_cast<long>(syscall(SYS_gettid)),
              static_cast<unsigned long long>(used), name.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int long_threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const double long_ms = argc > 2 ? std::atof(argv[2]) : 300;
  const int short_threads = argc > 3 ? std::atoi(argv[3]) : 50;
  const double short_ms = argc > 4 ? std::atof(argv[4]) : 2;
  std::vector<std::thread> longs;
  for (int i = 0; i < long_threads; ++i) {
    longs.emplace_back(busy_thread, "long-" + std::to_string(i),
                       static_cast<uint64_t>(long_ms * 1e6));
  }
  for (auto& t : longs) t.join();
  constexpr int kWave = 8;
  for (int start = 0; start < short_threads; start += kWave) {
    std::vector<std::thread> wave;
    for (int i = start; i < short_threads && i < start + kWave; ++i) {
      wave.emplace_back(busy_thread, "short-" + std::to_string(i),
                        static_cast<uint64_t>(short_ms * 1e6));
    }
    for (auto& t : wave) t.join();
  }
  std::fflush(stdout);
  return sink.load() == 42 ? 1 : 0;
}
