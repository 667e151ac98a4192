// offcpu_cpu_threads LONG LONG_MS SHORT SHORT_MS: LONG threads ("long-0", ...) that each use
// LONG_MS of CPU, then SHORT short-lived threads ("short-0", ...) of SHORT_MS of CPU each, started
// in waves of 8. Every thread prints "tid cpu_ns name steal_ns switches" at its end
// (CLOCK_THREAD_CPUTIME_ID, the steal its busy work saw and its context switches: thread_cpu.hpp),
// so tests can compare a thread's summed CPU deltas with its real CPU time.
//
// A thread's own last reading misses what it runs after it: the print, its return through
// glibc, and the kernel's exit path (which tears down the profiler's inherited perf events:
// tens of microseconds, 1-3 % of a 2 ms thread). The kernel adds a thread's whole runtime to its
// process's CPU clock when it releases the task, so the program also prints the short threads'
// whole CPU, "total short-threads cpu_ns": the process clock's growth from before the first short
// thread starts to after the last is released, less what the main thread used meanwhile.
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
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

__attribute__((noinline)) void busy_thread(const std::string& name, uint64_t cpu_ns,
                                           std::atomic<pid_t>* tid) {
  *tid = static_cast<pid_t>(syscall(SYS_gettid));
  pthread_setname_np(pthread_self(), name.c_str());
  sink += burn_cpu_ns(cpu_ns);
  const uint64_t used = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  std::lock_guard<std::mutex> lock(print_mutex);
  print_thread_cpu(static_cast<long>(tid->load()), used, name.c_str());
}

// pthread_join returns when the thread clears its tid, early in the kernel's exit path; its
// runtime reaches the process clock later, when the task is released and leaves /proc.
void wait_until_released(const std::vector<std::atomic<pid_t>>& tids) {
  for (const auto& tid : tids) {
    const std::string path = "/proc/self/task/" + std::to_string(tid.load());
    struct stat st {};
    while (stat(path.c_str(), &st) == 0) sched_yield();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int long_threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const double long_ms = argc > 2 ? std::atof(argv[2]) : 300;
  const int short_threads = argc > 3 ? std::atoi(argv[3]) : 50;
  const double short_ms = argc > 4 ? std::atof(argv[4]) : 2;
  std::vector<std::atomic<pid_t>> long_tids(static_cast<size_t>(long_threads));
  std::vector<std::thread> longs;
  for (int i = 0; i < long_threads; ++i) {
    longs.emplace_back(busy_thread, "long-" + std::to_string(i),
                       static_cast<uint64_t>(long_ms * 1e6), &long_tids[static_cast<size_t>(i)]);
  }
  for (auto& t : longs) t.join();
  wait_until_released(long_tids);

  const uint64_t process_before = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  const uint64_t main_before = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  constexpr int kWave = 8;
  std::vector<std::atomic<pid_t>> short_tids(static_cast<size_t>(short_threads));
  for (int start = 0; start < short_threads; start += kWave) {
    std::vector<std::thread> wave;
    for (int i = start; i < short_threads && i < start + kWave; ++i) {
      wave.emplace_back(busy_thread, "short-" + std::to_string(i),
                        static_cast<uint64_t>(short_ms * 1e6), &short_tids[static_cast<size_t>(i)]);
    }
    for (auto& t : wave) t.join();
  }
  wait_until_released(short_tids);
  const uint64_t main_used = clock_ns(CLOCK_THREAD_CPUTIME_ID) - main_before;
  const uint64_t process_used = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - process_before;
  std::printf("total short-threads %llu\n",
              static_cast<unsigned long long>(process_used - main_used));
  std::fflush(stdout);
  return sink.load() == 42 ? 1 : 0;
}
