// hp_lifetimes: allocation sites whose heaptrack/DHAT numbers are known exactly, for
// `sprof report --heap` (tests/integration/heap_report_test.cpp). One thread, in this order:
//   temp_site   100 x malloc(40), each freed at once: 100 calls, 100 temporary, nothing leaked;
//   keep_site   10 x malloc(1000), all kept for at least 20 ms, then freed in order: 10 calls,
//               0 temporary (each is followed by another allocation or free), none short-lived;
//   peak_site   3 x malloc(1 MiB) while keep_site's blocks are live: the program's peak, with
//               3 MiB at peak_site and 10,000 bytes at keep_site; freed before keep_site's;
//   leak_site   5 x malloc(333), never freed: 1,665 bytes leaked in 5 blocks.
// Prints "name calls=N bytes=N" per site, its own count.
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "heap_target.hpp"

namespace {

constexpr int kKeepBlocks = 10;
constexpr int kPeakBlocks = 3;

void sleep_ms(long ms) {
  timespec t{0, ms * 1'000'000};
  while (nanosleep(&t, &t) != 0) {
  }
}

}  // namespace

extern "C" {

__attribute__((noinline)) void temp_site() {
  for (int i = 0; i < 100; ++i) {
    void* p = std::malloc(40);
    keep(p);
    std::free(p);
  }
}

__attribute__((noinline)) void* keep_site() {
  void* p = std::malloc(1000);
  keep(p);
  return p;
}

__attribute__((noinline)) void* peak_site() {
  void* p = std::malloc(1 << 20);
  keep(p);
  return p;
}

__attribute__((noinline)) void leak_site() { keep(std::malloc(333)); }

}  // extern "C"

int main(int, char**) {
  // Printed first, so that stdio's buffer exists before the sites run.
  std::printf("temp_site calls=100 bytes=4000\nkeep_site calls=%d bytes=%d\n", kKeepBlocks,
              kKeepBlocks * 1000);
  std::printf("peak_site calls=%d bytes=%d\nleak_site calls=5 bytes=1665\n", kPeakBlocks,
              kPeakBlocks << 20);
  std::fflush(stdout);
  temp_site();
  void* kept[kKeepBlocks];
  for (void*& p : kept) p = keep_site();
  void* peak[kPeakBlocks];
  for (void*& p : peak) p = peak_site();
  sleep_ms(20);
  for (void* p : peak) std::free(p);
  for (void* p : kept) std::free(p);
  for (int i = 0; i < 5; ++i) leak_site();
  return 0;
}
