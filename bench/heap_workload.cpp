// bench/heap_workload.cpp: malloc-heavy work for the heap recording benchmark
// (bench/run-heap.py).
//
//   heap_workload small|mixed [--threads T] [--pairs N] [--work W] [--stack-kib K]
//
// small: each thread does N malloc/free pairs of 16-128 bytes, touching each block and doing W
//        steps of integer work per pair (W tunes the rate: ~10 M pairs/s on 2 threads here).
// mixed: each thread keeps 4,096 live blocks and replaces a random one N times, with sizes
//        log-uniform from 16 B to 64 KiB (a long-lived heap with large and small blocks).
// --stack-kib K runs the loop K KiB deeper in the stack (frames of 1 KiB), as allocation sites
// in deep call chains are, so each sample's stack copy has that much to copy.
// Prints "heap_workload pairs_per_s R wall_s S cpu_s C" (C: this process's CPU time) and a
// checksum so nothing is optimised away.
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Config {
  bool mixed = false;
  int threads = 2;
  uint64_t pairs = 20'000'000;
  int work = 20;
  int stack_kib = 0;
};

Config g_config;

uint64_t next(uint64_t& x) {
  x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x >> 17;
}

__attribute__((noinline)) uint64_t small_pairs(uint64_t seed) {
  uint64_t x = seed, sum = 0;
  for (uint64_t i = 0; i < g_config.pairs; ++i) {
    const size_t size = 16 + (next(x) & 112);
    auto* p = static_cast<unsigned char*>(std::malloc(size));
    p[0] = static_cast<unsigned char>(i);
    p[size - 1] = static_cast<unsigned char>(x);
    for (int w = 0; w < g_config.work; ++w) sum += next(x) & 7;
    sum += p[0] + p[size - 1];
    std::free(p);
  }
  return sum;
}

__attribute__((noinline)) uint64_t mixed_pairs(uint64_t seed) {
  constexpr size_t kLive = 4096;
  std::vector<unsigned char*> live(kLive, nullptr);
  uint64_t x = seed, sum = 0;
  for (uint64_t i = 0; i < g_config.pairs; ++i) {
    const size_t slot = next(x) % kLive;
    std::free(live[slot]);
    // log-uniform in [16, 65536]
    const double u = static_cast<double>(next(x) & 0xFFFFF) / 0x100000;
    const auto size = static_cast<size_t>(16.0 * std::exp2(u * 12.0));
    auto* p = static_cast<unsigned char*>(std::malloc(size));
    p[0] = static_cast<unsigned char>(i);
    p[size - 1] = static_cast<unsigned char>(x);
    for (int w = 0; w < g_config.work; ++w) sum += next(x) & 7;
    sum += p[0];
    live[slot] = p;
  }
  for (auto* p : live) std::free(p);
  return sum;
}

__attribute__((noinline)) uint64_t run_at_depth(uint64_t seed, int kib) {
  if (kib > 0) {
    volatile unsigned char frame[1000];
    frame[0] = static_cast<unsigned char>(seed);
    return run_at_depth(seed, kib - 1) + frame[0];
  }
  return g_config.mixed ? mixed_pairs(seed) : small_pairs(seed);
}

void* thread_main(void* arg) {
  const auto seed = reinterpret_cast<uintptr_t>(arg);
  const uint64_t sum = run_at_depth(seed, g_config.stack_kib);
  return reinterpret_cast<void*>(static_cast<uintptr_t>(sum));
}

double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "small") != 0 && std::strcmp(argv[1], "mixed") != 0)) {
    std::fprintf(stderr, "usage: heap_workload small|mixed [--threads T] [--pairs N] [--work W]\n");
    return 2;
  }
  g_config.mixed = std::strcmp(argv[1], "mixed") == 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0) g_config.threads = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--pairs") == 0)
      g_config.pairs = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--work") == 0) g_config.work = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--stack-kib") == 0) g_config.stack_kib = std::atoi(argv[i + 1]);
  }
  const double start = now_s();
  std::vector<pthread_t> threads(static_cast<size_t>(g_config.threads));
  for (size_t t = 0; t < threads.size(); ++t)
    pthread_create(&threads[t], nullptr, thread_main, reinterpret_cast<void*>(t * 7919 + 1));
  uint64_t checksum = 0;
  for (auto& t : threads) {
    void* r = nullptr;
    pthread_join(t, &r);
    checksum += reinterpret_cast<uintptr_t>(r);
  }
  const double wall = now_s() - start;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  std::printf("heap_workload pairs_per_s %.0f wall_s %.3f cpu_s %.3f checksum %llu\n",
              static_cast<double>(g_config.pairs) * g_config.threads / wall, wall, cpu,
              static_cast<unsigned long long>(checksum & 0xFFFF));
  return 0;
}
