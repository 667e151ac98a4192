// hp_wrappers [ROUNDS]: allocates through the wrappers above malloc, from known functions, ROUNDS
// times (default 10), freeing every block: operator new and new[] in their plain, nothrow and
// aligned forms, std::vector's allocator, and libc's strdup and strndup. Each site prints the
// bytes it asked for in all ("new_site bytes=N"), so a test can check that every byte is the
// site's own (self), none the wrapper's.
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "heap_target.hpp"

namespace {

struct Block {
  char bytes[1000];
};
struct alignas(128) Wide {  // over-aligned: the align_val_t forms of operator new
  char bytes[384];
};
constexpr const char* kText =
    "a string of some length, copied whole by strdup and, its first 49 characters, by strndup";

}  // namespace

extern "C" {

// new Block (1000) and new char[2000].
__attribute__((noinline)) size_t new_site() {
  auto* b = new Block;
  auto* c = new char[2000];
  keep(b), keep(c);
  delete b;
  delete[] c;
  return sizeof(Block) + 2000;
}

// new (nothrow) char[3000] and new (nothrow) Block (1000).
__attribute__((noinline)) size_t nothrow_site() {
  auto* c = new (std::nothrow) char[3000];
  auto* b = new (std::nothrow) Block;
  keep(c), keep(b);
  delete[] c;
  delete b;
  return 3000 + sizeof(Block);
}

// new Wide (384), new Wide[2] (768), new (nothrow) Wide (384), new (nothrow) Wide[3] (1152).
__attribute__((noinline)) size_t aligned_site() {
  auto* w = new Wide;
  auto* a = new Wide[2];
  auto* n = new (std::nothrow) Wide;
  auto* na = new (std::nothrow) Wide[3];
  keep(w), keep(a), keep(n), keep(na);
  delete w;
  delete[] a;
  delete n;
  delete[] na;
  return 7 * sizeof(Wide);
}

// A vector of 1500 ints (6000), through std::allocator.
__attribute__((noinline)) size_t vector_site() {
  std::vector<int> v(1500);
  keep(v.data());
  return v.size() * sizeof(int);
}

// strdup of kText and strndup of its first 49 characters (with their terminators).
__attribute__((noinline)) size_t strdup_site() {
  char* d = strdup(kText);
  char* n = strndup(kText, 49);
  keep(d), keep(n);
  const size_t bytes = std::strlen(d) + 1 + std::strlen(n) + 1;
  std::free(d);
  std::free(n);
  return bytes;
}

}  // extern "C"

int main(int argc, char** argv) {
  print_identity();
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
  size_t bytes[5] = {};
  for (int r = 0; r < rounds; ++r) {
    bytes[0] += new_site();
    bytes[1] += nothrow_site();
    bytes[2] += aligned_site();
    bytes[3] += vector_site();
    bytes[4] += strdup_site();
  }
  const char* names[5] = {"new_site", "nothrow_site", "aligned_site", "vector_site", "strdup_site"};
  for (int s = 0; s < 5; ++s) std::printf("%s bytes=%zu\n", names[s], bytes[s]);
  return 0;
}
