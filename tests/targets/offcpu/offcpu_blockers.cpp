// offcpu_blockers ITERATIONS BUSY_MS SLEEP_MS HOLD_MS: threads that block in known functions.
//  - "sleeper": ITERATIONS times, BUSY_MS of CPU in `sleeper_compute`, then SLEEP_MS in
//    `sleep_in_named_function` (nanosleep): about half its time off CPU.
//  - "mutex-waiter": blocks in `wait_for_lock` on a mutex main holds for HOLD_MS.
//  - "pipe-reader": blocks in `read_from_pipe` until main writes, after HOLD_MS.
// Each thread prints "tid cpu_ns name steal_ns switches" at its end (CLOCK_THREAD_CPUTIME_ID,
// the steal its busy work saw and its context switches: thread_cpu.hpp).
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "thread_cpu.hpp"

namespace {

std::mutex print_mutex;
std::mutex held_by_main;
std::atomic<uint64_t> sink{0};
int pipe_fds[2];

void report(const char* name) {
  const uint64_t used = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  std::lock_guard<std::mutex> lock(print_mutex);
  print_thread_cpu(static_cast<long>(syscall(SYS_gettid)), used, name);
}

// The barrier after each blocking call keeps it a real call (no tail call), so the named
// function stays on the stack while the thread is blocked.
__attribute__((noinline)) void sleep_in_named_function(double ms) {
  timespec ts{static_cast<time_t>(ms / 1000),
              static_cast<long>((ms - 1000.0 * static_cast<long>(ms / 1000)) * 1e6)};
  nanosleep(&ts, nullptr);
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void sleeper_compute(double ms) {
  sink += burn_cpu_ns(static_cast<uint64_t>(ms * 1e6));
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void sleeper(int iterations, double busy_ms, double sleep_ms) {
  pthread_setname_np(pthread_self(), "sleeper");
  for (int i = 0; i < iterations; ++i) {
    sleeper_compute(busy_ms);
    sleep_in_named_function(sleep_ms);
  }
  report("sleeper");
}

__attribute__((noinline)) void wait_for_lock() {
  held_by_main.lock();
  asm volatile("" ::: "memory");
  held_by_main.unlock();
}

__attribute__((noinline)) void mutex_waiter() {
  pthread_setname_np(pthread_self(), "mutex-waiter");
  wait_for_lock();
  report("mutex-waiter");
}

__attribute__((noinline)) void read_from_pipe() {
  char byte = 0;
  if (read(pipe_fds[0], &byte, 1) != 1) std::abort();
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void pipe_reader() {
  pthread_setname_np(pthread_self(), "pipe-reader");
  read_from_pipe();
  report("pipe-reader");
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 10;
  const double busy_ms = argc > 2 ? std::atof(argv[2]) : 20;
  const double sleep_ms = argc > 3 ? std::atof(argv[3]) : 20;
  const double hold_ms = argc > 4 ? std::atof(argv[4]) : 300;
  if (pipe(pipe_fds) != 0) return 2;
  held_by_main.lock();
  std::thread s(sleeper, iterations, busy_ms, sleep_ms);
  std::thread m(mutex_waiter);
  std::thread p(pipe_reader);
  sleep_in_named_function(hold_ms);
  held_by_main.unlock();
  if (write(pipe_fds[1], "x", 1) != 1) return 2;
  s.join();
  m.join();
  p.join();
  report("main");
  std::fflush(stdout);
  return sink.load() == 42 ? 1 : 0;
}
