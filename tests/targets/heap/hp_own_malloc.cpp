// hp_own_malloc: an executable that defines malloc, free, calloc and realloc itself (as one
// that links jemalloc or mimalloc statically does). The executable comes first in symbol lookup,
// before any LD_PRELOAD library, so every call in the process (libc's too) reaches these and
// the heap interposer sees none. A bump allocator over a static arena: enough for this program.
// own_site allocates 5 x 100,003 B; the program prints "pid=... main=..." and "done".
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "heap_target.hpp"

namespace {

alignas(64) unsigned char g_arena[8 << 20];
size_t g_used = 0;

// Each block is preceded by 16 bytes holding its size, so realloc can copy it.
void* bump(size_t size) {
  const size_t need = (size + 16 + 15) & ~size_t{15};
  if (need > sizeof g_arena - g_used) {
    errno = ENOMEM;
    return nullptr;
  }
  unsigned char* at = g_arena + g_used;
  g_used += need;
  std::memcpy(at, &size, sizeof size);
  return at + 16;
}

}  // namespace

extern "C" {

void* malloc(size_t size) { return bump(size); }
void free(void*) {}
void* calloc(size_t count, size_t size) {
  void* p = bump(count * size);
  if (p != nullptr) std::memset(p, 0, count * size);
  return p;
}
void* realloc(void* old, size_t size) {
  void* p = bump(size);
  if (p != nullptr && old != nullptr) {
    size_t old_size = 0;
    std::memcpy(&old_size, static_cast<unsigned char*>(old) - 16, sizeof old_size);
    std::memcpy(p, old, old_size < size ? old_size : size);
  }
  return p;
}

__attribute__((noinline)) void own_site() {
  for (int i = 0; i < 5; ++i) {
    void* p = malloc(100003);
    keep(p);
    free(p);
  }
}

}  // extern "C"

int main(int, char**) {
  print_identity();
  own_site();
  std::puts("done");
  return 0;
}
