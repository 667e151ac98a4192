// hp_sites [TOTAL_KIB]: three worker threads allocate and free TOTAL_KIB KiB (default 1.2 GiB)
// from three sites with distinct block sizes: site_small 50 % (256 B), site_medium 30 %
// (4 KiB), site_large 20 % (64 KiB). Then main leaks exactly three blocks from leak_site and
// prints its own accounting: bytes and calls per site, the leak's bytes and addresses.
#include <pthread.h>

#include <cstdint>
#include <cstdlib>

#include "heap_target.hpp"

namespace {

constexpr uint64_t kSmall = 256, kMedium = 4096, kLarge = 65536;
constexpr int kWorkers = 3;
// Large enough that sampling at the default interval almost surely catches at least one.
constexpr uint64_t kLeakBlocks[] = {4u << 20, 2u << 20, (1u << 20) + 12345};

uint64_t g_budget[3];  // per worker, per site

}  // namespace

// Inlined into each site, so the site is what calls malloc.
__attribute__((always_inline)) inline uint64_t churn(uint64_t bytes, uint64_t block) {
  uint64_t calls = 0;
  for (uint64_t done = 0; done + block <= bytes; done += block, ++calls) {
    void* p = std::malloc(block);
    keep(p);
    std::free(p);
  }
  return calls;
}

extern "C" {

__attribute__((noinline)) uint64_t site_small(uint64_t bytes) { return churn(bytes, kSmall); }
__attribute__((noinline)) uint64_t site_medium(uint64_t bytes) { return churn(bytes, kMedium); }
__attribute__((noinline)) uint64_t site_large(uint64_t bytes) { return churn(bytes, kLarge); }

__attribute__((noinline)) void* leak_site(uint64_t bytes) {
  void* p = std::malloc(bytes);
  keep(p);
  return p;
}

}  // extern "C"

namespace {

uint64_t g_calls[kWorkers][3];

void* worker(void* arg) {
  const auto w = reinterpret_cast<uintptr_t>(arg);
  g_calls[w][0] = site_small(g_budget[0]);
  g_calls[w][1] = site_medium(g_budget[1]);
  g_calls[w][2] = site_large(g_budget[2]);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  print_identity();
  const uint64_t total = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1200 * 1024) * 1024;
  g_budget[0] = total / 2 / kWorkers;
  g_budget[1] = total * 3 / 10 / kWorkers;
  g_budget[2] = total / 5 / kWorkers;
  pthread_t threads[kWorkers];
  for (uintptr_t w = 0; w < kWorkers; ++w)
    pthread_create(&threads[w], nullptr, worker, reinterpret_cast<void*>(w));
  for (auto& t : threads) pthread_join(t, nullptr);

  uint64_t calls[3] = {};
  for (const auto& c : g_calls)
    for (int s = 0; s < 3; ++s) calls[s] += c[s];
  std::printf("site_small calls=%llu bytes=%llu\n", static_cast<unsigned long long>(calls[0]),
              static_cast<unsigned long long>(calls[0] * kSmall));
  std::printf("site_medium calls=%llu bytes=%llu\n", static_cast<unsigned long long>(calls[1]),
              static_cast<unsigned long long>(calls[1] * kMedium));
  std::printf("site_large calls=%llu bytes=%llu\n", static_cast<unsigned long long>(calls[2]),
              static_cast<unsigned long long>(calls[2] * kLarge));
  uint64_t leaked = 0;
  for (const uint64_t size : kLeakBlocks) {
    std::printf("leak block=%p size=%llu\n", leak_site(size),
                static_cast<unsigned long long>(size));
    leaked += size;
  }
  std::printf("leak_site bytes=%llu\n", static_cast<unsigned long long>(leaked));
  return 0;
}
