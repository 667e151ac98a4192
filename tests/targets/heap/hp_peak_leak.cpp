// hp_peak_leak: memory whose peak and leak the program accounts for itself. Two threads each
// allocate kBlocksPerThread blocks of 4 MiB from grow_site (with small malloc/free pairs in
// between), wait for each other, so that every block is live at once, then free them all; main
// then leaks three blocks of 16 MiB and more from leak_big. Blocks this large are sampled with
// probability 1 - exp(-size / 512 KiB), so at the default interval the peak is estimated within
// a fraction of a percent and the leak exactly. Prints "peak_bytes=N" (the most bytes it had
// allocated and not freed at any moment, by its own count) and "leak_bytes=N".
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "heap_target.hpp"

namespace {

constexpr uint64_t kBlock = 4u << 20;
constexpr int kThreads = 2;
constexpr int kBlocksPerThread = 12;
constexpr uint64_t kLeaks[] = {16u << 20, 24u << 20, (32u << 20) + 12345};

std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};
pthread_barrier_t g_all_allocated;

void count(int64_t delta) {
  const int64_t now = g_live.fetch_add(delta) + delta;
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

// Inlined into each site, so the site is what calls malloc.
__attribute__((always_inline)) inline void* counted_malloc(uint64_t size) {
  void* p = std::malloc(size);
  keep(p);
  count(static_cast<int64_t>(size));
  return p;
}

void counted_free(void* p, uint64_t size) {
  count(-static_cast<int64_t>(size));
  std::free(p);
}

}  // namespace

extern "C" {

__attribute__((noinline)) void* grow_site(uint64_t size) { return counted_malloc(size); }

__attribute__((noinline)) void churn_site() {
  for (int i = 0; i < 1000; ++i) counted_free(counted_malloc(64), 64);
}

__attribute__((noinline)) void* leak_big(uint64_t size) { return counted_malloc(size); }

}  // extern "C"

namespace {

void* worker(void*) {
  void* blocks[kBlocksPerThread];
  for (auto& b : blocks) {
    b = grow_site(kBlock);
    churn_site();
  }
  pthread_barrier_wait(&g_all_allocated);
  for (auto& b : blocks) counted_free(b, kBlock);
  return nullptr;
}

}  // namespace

int main(int, char**) {
  print_identity();
  pthread_barrier_init(&g_all_allocated, nullptr, kThreads);
  pthread_t threads[kThreads];
  for (auto& t : threads) pthread_create(&t, nullptr, worker, nullptr);
  for (auto& t : threads) pthread_join(t, nullptr);
  uint64_t leaked = 0;
  for (const uint64_t size : kLeaks) {
    leak_big(size);
    leaked += size;
  }
  std::printf("peak_bytes=%lld\nleak_bytes=%llu\n", static_cast<long long>(g_peak.load()),
              static_cast<unsigned long long>(leaked));
  return 0;
}
