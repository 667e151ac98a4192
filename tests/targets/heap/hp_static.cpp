// hp_static: a statically linked program, so LD_PRELOAD cannot reach it. It allocates and
// prints "static ok"; the interposer must never attach.
#include <cstdlib>

#include "heap_target.hpp"

int main(int, char**) {
  void* p = std::malloc(4096);
  keep(p);
  std::free(p);
  std::printf("static ok\n");
  return 0;
}
