// it_threads THREADS SECONDS: THREADS named threads ("worker-0", ...) each spin for SECONDS of
// wall time in `spin_worker`, then print "tid cpu_ns name" per worker, measured with
// CLOCK_THREAD_CPUTIME_ID, so tests can compare sample counts with real CPU time.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

uint64_t now_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

__attribute__((noinline)) uint64_t spin_worker(double seconds) {
  const uint64_t end = now_ns(CLOCK_MONOTONIC) + static_cast<uint64_t>(seconds * 1e9);
  uint64_t x = 1;
  while (now_ns(CLOCK_MONOTONIC) < end) {
    for (int i = 0; i < 10000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  return x;
}

struct WorkerReport {
  long tid = 0;
  uint64_t cpu_ns = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 4;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  std::vector<WorkerReport> reports(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  std::atomic<uint64_t> sink{0};
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&, i] {
      const std::string name = "worker-" + std::to_string(i);
      pthread_setname_np(pthread_self(), name.c_str());
      sink += spin_worker(seconds);
      reports[static_cast<size_t>(i)] = {static_cast<long>(syscall(SYS_gettid)),
                                         now_ns(CLOCK_THREAD_CPUTIME_ID)};
    });
  }
  for (auto& w : workers) w.join();
  for (int i = 0; i < threads; ++i) {
    std::printf("%ld %llu worker-%d\n", reports[static_cast<size_t>(i)].tid,
                static_cast<unsigned long long>(reports[static_cast<size_t>(i)].cpu_ns), i);
  }
  return sink.load() == 42 ? 1 : 0;
}
