// hp_realloc_aligned: one call of every interposed allocation function from known functions,
// a realloc chain growing a block from 16 B to 1 MiB, and checks of the functions' error
// contracts (which the interposer reimplements for posix_memalign and reallocarray). Prints
// "ok" when every check passed, otherwise what failed (exit 1).
#include <malloc.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "heap_target.hpp"

namespace {

int g_failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++g_failures;
  }
}

bool aligned(void* p, uintptr_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

}  // namespace

extern "C" {

// 16, 32, ..., 1 MiB: 17 reallocs, then one reallocarray to 10 x 100 000 bytes and a free.
__attribute__((noinline)) void realloc_chain() {
  void* p = nullptr;
  for (size_t size = 16; size <= (1u << 20); size *= 2) {
    p = std::realloc(p, size);
    keep(p);
    check(p != nullptr && malloc_usable_size(p) >= size, "realloc grows the block");
  }
  p = reallocarray(p, 10, 100000);
  keep(p);
  check(p != nullptr, "reallocarray");
  std::free(p);
}

__attribute__((noinline)) void aligned_site() {
  void* a = nullptr;
  check(posix_memalign(&a, 64, 1000) == 0 && aligned(a, 64), "posix_memalign(64, 1000)");
  void* b = aligned_alloc(4096, 8192);
  check(b != nullptr && aligned(b, 4096), "aligned_alloc(4096, 8192)");
  void* c = memalign(256, 300);
  check(c != nullptr && aligned(c, 256), "memalign(256, 300)");
  void* d = valloc(5000);
  check(d != nullptr && aligned(d, 4096), "valloc(5000)");
  void* e = pvalloc(5000);
  check(e != nullptr && aligned(e, 4096), "pvalloc(5000)");
  auto* f = static_cast<unsigned char*>(std::calloc(10, 30));
  check(f != nullptr && f[0] == 0 && f[299] == 0, "calloc(10, 30) zeroes");
  keep(a), keep(b), keep(c), keep(d), keep(e), keep(f);
  std::free(a), std::free(b), std::free(c), std::free(d), std::free(e), std::free(f);
}

__attribute__((noinline)) void cxx_site() {
  auto* p = new char[1234];
  keep(p);
  delete[] p;
  struct alignas(128) Wide {
    char bytes[300];
  };
  auto* w = new Wide;
  check(aligned(w, 128), "aligned new");
  keep(w);
  delete w;
}

}  // extern "C"

namespace {

// Through a volatile, so the compiler cannot see (and warn about) the impossible sizes.
volatile size_t g_huge = SIZE_MAX;

void error_contracts() {
  void* p = reinterpret_cast<void*>(0x1);
  check(posix_memalign(&p, 3, 10) == EINVAL && p == reinterpret_cast<void*>(0x1),
        "posix_memalign rejects alignment 3 and leaves *memptr");
  check(posix_memalign(&p, 0, 10) == EINVAL, "posix_memalign rejects alignment 0");
  errno = 0;
  check(reallocarray(nullptr, g_huge, 2) == nullptr && errno == ENOMEM,
        "reallocarray overflow is ENOMEM");
  errno = 0;
  check(std::calloc(g_huge, 2) == nullptr && errno == ENOMEM, "calloc overflow is ENOMEM");
  void* q = std::malloc(100);
  check(std::realloc(q, 0) == nullptr, "realloc(p, 0) frees");
  errno = 1234;
  std::free(std::malloc(10));
  check(errno == 1234, "malloc and free keep errno");
}

}  // namespace

int main(int, char**) {
  print_identity();
  realloc_chain();
  aligned_site();
  cxx_site();
  error_contracts();
  std::printf(g_failures == 0 ? "ok\n" : "failures=%d\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
