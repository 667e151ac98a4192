// hp_free_sites: blocks freed in known functions, for `record --heap-free-stacks`
// (tests/integration/heap_free_stacks_test.cpp). One thread, in this order:
//   alloc_site     50 x malloc(100), kept;
//   new_site       20 x new int[25] (100 bytes each), kept;
//   release_here   frees alloc_site's 50 blocks with free(): 5,000 bytes;
//   delete_here    frees new_site's 20 blocks with delete[] (libstdc++'s operator delete[],
//                  which calls free): 2,000 bytes.
// The allocating and the freeing functions differ, so a free's stack that leads to the
// allocating function would be wrong. Prints "ok" once done.
#include <cstdio>
#include <cstdlib>

#include "heap_target.hpp"

namespace {

constexpr int kBlocks = 50;
constexpr int kArrays = 20;
void* g_blocks[kBlocks];
int* g_arrays[kArrays];

}  // namespace

extern "C" {

__attribute__((noinline)) void alloc_site() {
  for (void*& b : g_blocks) {
    b = std::malloc(100);
    keep(b);
  }
}

__attribute__((noinline)) void new_site() {
  for (int*& a : g_arrays) {
    a = new int[25];
    keep(a);
  }
}

__attribute__((noinline)) void release_here() {
  for (void* b : g_blocks) std::free(b);
}

__attribute__((noinline)) void delete_here() {
  for (int* a : g_arrays) delete[] a;
}

}  // extern "C"

int main(int, char**) {
  std::printf("release_here bytes=%d\ndelete_here bytes=%d\n", kBlocks * 100, kArrays * 100);
  alloc_site();
  new_site();
  release_here();
  delete_here();
  std::printf("ok\n");
  return 0;
}
