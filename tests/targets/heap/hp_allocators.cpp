// hp_allocators: the same three sites, built against each allocator sprof's tests cover
// (tests/targets/heap.cmake links it with glibc's malloc, -ljemalloc, -lmimalloc and
// -ltcmalloc_minimal; HP_MIMALLOC_API adds a site that calls mimalloc's own API). Every site
// allocates and frees blocks of a size no other code uses, so a test can find each one's bytes:
//   malloc_site  3 x 100,003 B with malloc
//   new_site     2 x 200,003 B with operator new[]
//   mi_site      4 x 50,003 B with mi_malloc, 1 x 7,003 B with mi_zalloc, 1 x 9,003 B with
//                mi_malloc_aligned (64), 1 x 3 x 1,001 B with mi_calloc (HP_MIMALLOC_API only)
//   mi_api_site  one call of each other function of mimalloc's API that the interposer hooks,
//                every block freed (HP_MIMALLOC_API only; sizes in kMiApiSiteBytes below, which
//                tests/integration/heap_allocators_test.cpp repeats)
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

// Each allocating call once, with a size no other call uses; 23 blocks (the re* calls replace
// theirs), all freed. Several of these call others of the list inside libmimalloc (through its
// PLT): each must still count once.
__attribute__((noinline)) void mi_api_site() {
  mi_heap_t* heap = mi_heap_get_default();
  void* blocks[] = {
      mi_mallocn(3, 1013),                      // 3,039
      mi_malloc_small(96),                      // 96
      mi_zalloc_small(112),                     // 112
      mi_new(2029),                             // 2,029
      mi_new_nothrow(2039),                     // 2,039
      mi_new_aligned(2053, 64),                 // 2,053
      mi_new_aligned_nothrow(2063, 64),         // 2,063
      mi_new_n(4, 1019),                        // 4,076
      mi_strdup("seventeen chars!"),            // 17
      mi_strndup("seventeen chars!", 5),        // 6
      mi_heap_malloc(heap, 2069),               // 2,069
      mi_heap_zalloc(heap, 2081),               // 2,081
      mi_heap_calloc(heap, 5, 1021),            // 5,105
      mi_heap_mallocn(heap, 6, 1031),           // 6,186
      mi_heap_malloc_small(heap, 104),          // 104
      mi_heap_malloc_aligned(heap, 2087, 128),  // 2,087
      mi_heap_zalloc_aligned(heap, 2089, 128),  // 2,089
      mi_heap_strdup(heap, "nine char"),        // 10
      mi_heap_strndup(heap, "nine char", 3),    // 4
  };
  for (void* block : blocks) keep(block);
  // The re* family on one block: 1,033 B, then each call's size replaces it.
  void* r = mi_malloc(1033);
  r = mi_reallocn(r, 2, 1039);          // 2,078
  r = mi_reallocf(r, 3001);             // 3,001
  r = mi_rezalloc(r, 3011);             // 3,011
  r = mi_recalloc(r, 2, 1049);          // 2,098
  r = mi_realloc_aligned(r, 3023, 64);  // 3,023
  r = mi_new_realloc(r, 3037);          // 3,037
  r = mi_new_reallocn(r, 2, 1051);      // 2,102
  r = mi_heap_realloc(heap, r, 3041);   // 3,041
  r = mi_heap_reallocf(heap, r, 3043);  // 3,043
  r = mi_heap_rezalloc(heap, r, 3049);  // 3,049
  keep(r);
  mi_free(r);
  for (void* block : blocks) mi_free(block);
  void* sized = mi_malloc_aligned(1061, 64);  // 1,061
  keep(sized);
  mi_free_size_aligned(sized, 1061, 64);
}
#endif

}  // extern "C"

int main(int, char**) {
  print_identity();
  malloc_site();
  new_site();
#ifdef HP_MIMALLOC_API
  mi_site();
  mi_api_site();
#endif
  std::puts("done");
  return 0;
}
