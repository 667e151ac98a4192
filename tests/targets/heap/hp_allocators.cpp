// hp_allocators: the same three sites, built against each allocator sprof's tests cover
// (tests/targets/heap.cmake links it with glibc's malloc, -ljemalloc, -lmimalloc and
// -ltcmalloc_minimal; HP_MIMALLOC_API adds a site that calls mimalloc's own API). Every site
// allocates and frees blocks of a size no other code uses, so a test can find each one's bytes:
//   malloc_site  3 x 100,003 B with malloc
//   new_site     2 x 200,003 B with operator new[]
//   mi_site      4 x 50,003 B with mi_malloc, 1 x 7,003 B with mi_zalloc, 1 x 9,003 B with
//                mi_malloc_aligned (64), 1 x 3 x 1,001 B with mi_calloc (HP_MIMALLOC_API only)
// It prints "pid=... main=..." first and "done" last.
#include <cstdio>
#include <cstdlib>

#include "heap_target.hpp"
#ifdef HP_MIMALLOC_API
#include <mimalloc.h>
#endif

extern "C" {

__attribute__((noinline)) void malloc_site() {
  for (int i = 0; i < 3; ++i) {
    void* p = std::malloc(100003);
    keep(p);
    std::free(p);
  }
}

__attribute__((noinline)) void new_site() {
  for (int i = 0; i < 2; ++i) {
    auto* p = new char[200003];
    keep(p);
    delete[] p;
  }
}

#ifdef HP_MIMALLOC_API
__attribute__((noinline)) void mi_site() {
  for (int i = 0; i < 4; ++i) {
    void* p = mi_malloc(50003);
    keep(p);
    mi_free(p);
  }
  void* z = mi_zalloc(7003);
  void* a = mi_malloc_aligned(9003, 64);
  void* c = mi_calloc(3, 1001);
  keep(z);
  keep(a);
  keep(c);
  mi_free(z);
  mi_free(a);
  mi_free(c);
}
#endif

}  // extern "C"

int main(int, char**) {
  print_identity();
  malloc_site();
  new_site();
#ifdef HP_MIMALLOC_API
  mi_site();
#endif
  std::puts("done");
  return 0;
}
