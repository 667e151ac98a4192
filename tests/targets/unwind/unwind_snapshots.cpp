// tests/targets/unwind/unwind_snapshots.cpp
//
// Target program for the unwinder tests and benchmark: runs a sequence of phases, each a known
// call chain, while sampling itself (snapshot_sampler.hpp), then writes the snapshots.
// Usage: unwind_snapshots <output dir> [phase milliseconds]
//
// Built -O2 -fomit-frame-pointer, so only CFI can walk these frames. Functions are extern "C",
// noinline and noclone so tests can expect exact names; each call is followed by work on its
// result, so no call becomes a tail call.
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "snapshot_sampler.hpp"

#define TARGET_FN extern "C" __attribute__((noinline, noclone, used))

using sprof::test::unwind_snapshot::Phase;

extern "C" uint64_t lib_apply(uint64_t n, uint64_t (*callback)(uint64_t));

namespace {

volatile uint64_t g_sink;
volatile double g_dsink;
long g_phase_ms = 150;

uint64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

}  // namespace

// --- leaf functions -----------------------------------------------------------------------------
TARGET_FN double leaf_polynomial(double x) {
  double r = 0;
  for (int i = 0; i < 32; ++i) r = r * x + 1.0 / (i + 1);
  return r;
}

TARGET_FN double leaf_caller(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += leaf_polynomial(i * 0.001);
  return s * 0.5;
}

TARGET_FN void phase_leaf() {
  for (uint64_t end = now_ms() + g_phase_ms; now_ms() < end;) g_dsink = g_dsink + leaf_caller(2000);
}

// --- a shared library calling back --------------------------------------------------------------
TARGET_FN uint64_t exe_callback(uint64_t x) {
  for (int i = 0; i < 32; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x >> 3;
}

TARGET_FN void phase_shared_lib() {
  for (uint64_t end = now_ms() + g_phase_ms; now_ms() < end;) {
    g_sink = g_sink + lib_apply(5000, exe_callback);
  }
}

// --- libm (no frame pointers in Debian's build) -------------------------------------------------
TARGET_FN void phase_libm() {
  double acc = 0;
  for (uint64_t end = now_ms() + g_phase_ms; now_ms() < end;) {
    for (int i = 1; i < 20000; ++i) {
      const double x = i * 0.37 + acc * 1e-9;
      acc += sin(x) + exp(-x * 1e-3) + log(x) + pow(x, 0.37);
    }
  }
  g_dsink = acc;
}

// --- a signal handler ---------------------------------------------------------------------------
TARGET_FN uint64_t handler_work(uint64_t seed) {
  for (int i = 0; i < 200000; ++i) seed = (seed ^ (seed << 13)) * 31 + static_cast<uint64_t>(i);
  return seed;
}

TARGET_FN void usr1_handler(int sig) { g_sink = g_sink + handler_work(static_cast<uint64_t>(sig)); }

TARGET_FN void phase_signal() {
  struct sigaction sa {};
  sa.sa_handler = usr1_handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, nullptr);
  for (uint64_t end = now_ms() + g_phase_ms; now_ms() < end;) {
    raise(SIGUSR1);
    g_sink = g_sink + 1;
  }
}

// --- recursion deeper than the stack copy -------------------------------------------------------
TARGET_FN uint64_t recurse(int depth, uint64_t end_ms) {
  volatile uint64_t pad[32];
  pad[0] = static_cast<uint64_t>(depth);
  if (depth == 0) {
    uint64_t x = 1;
    while (now_ms() < end_ms) {
      for (int i = 0; i < 100000; ++i) x = x * 3 + pad[0];
    }
    return x;
  }
  return recurse(depth - 1, end_ms) + pad[0];
}

TARGET_FN void phase_recursion() { g_sink = g_sink + recurse(200, now_ms() + g_phase_ms); }

// --- a second thread ----------------------------------------------------------------------------
TARGET_FN uint64_t thread_work(uint64_t end_ms) {
  uint64_t x = 7;
  while (now_ms() < end_ms) {
    for (int i = 0; i < 100000; ++i) x = (x >> 1) ^ (x * 0x2545F4914F6CDD1DULL);
  }
  return x;
}

TARGET_FN void* thread_body(void*) {
  unwind_target::start_sampling_this_thread(1000);
  g_sink = g_sink + thread_work(now_ms() + g_phase_ms);
  unwind_target::stop_sampling_this_thread();
  return nullptr;
}

TARGET_FN void phase_thread() {
  pthread_t thread;
  if (pthread_create(&thread, nullptr, thread_body, nullptr) == 0) pthread_join(thread, nullptr);
}

// --- the vdso -----------------------------------------------------------------------------------
TARGET_FN void phase_vdso() {
  timespec ts{};
  uint64_t sum = 0;
  for (uint64_t end = now_ms() + g_phase_ms; now_ms() < end;) {
    for (int i = 0; i < 1000; ++i) {
      clock_gettime(CLOCK_MONOTONIC, &ts);
      sum += static_cast<uint64_t>(ts.tv_nsec);
    }
  }
  g_sink = sum;
}

// --- a libc function calling back ---------------------------------------------------------------
TARGET_FN int compare_ints(const void* a, const void* b) {
  const int x = *static_cast<const int*>(a);
  const int y = *static_cast<const int*>(b);
  return (x > y) - (x < y);
}

TARGET_FN void phase_qsort() {
  static int values[50000];
  uint32_t state = 12345;
  for (uint64_t end = now_ms() + g_phase_ms; now_ms() < end;) {
    for (int& v : values) v = static_cast<int>(state = state * 1664525u + 1013904223u);
    qsort(values, sizeof values / sizeof values[0], sizeof values[0], compare_ints);
  }
  g_sink = static_cast<uint64_t>(values[0]);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <output dir> [phase ms]\n", argv[0]);
    return 2;
  }
  if (argc > 2) g_phase_ms = std::atol(argv[2]);
  unwind_target::start_sampling_this_thread(1000);
  struct PhaseRun {
    Phase phase;
    void (*run)();
  };
  const PhaseRun phases[] = {
      {Phase::kLeaf, phase_leaf},           {Phase::kSharedLib, phase_shared_lib},
      {Phase::kLibm, phase_libm},           {Phase::kSignal, phase_signal},
      {Phase::kRecursion, phase_recursion}, {Phase::kVdso, phase_vdso},
      {Phase::kQsort, phase_qsort},
  };
  for (const PhaseRun& p : phases) {
    unwind_target::set_phase(p.phase);
    p.run();
    unwind_target::set_phase(Phase::kIdle);
  }
  unwind_target::stop_sampling_this_thread();
  // The worker samples itself; main is blocked in pthread_join meanwhile.
  unwind_target::set_phase(Phase::kThread);
  phase_thread();
  unwind_target::set_phase(Phase::kIdle);
  return unwind_target::write_snapshots(argv[1]) ? 0 : 1;
}
