// tests/targets/heap/heap_target.hpp: helpers shared by the heap interposer's target programs.
//
// Each target prints "pid=<pid> main=<runtime address of main>" so a test can turn the return
// addresses it finds in recorded stack copies into functions of the target (nm gives the
// link-time addresses; the difference is the load bias of that process).
#pragma once

#include <unistd.h>

#include <cstdio>

// Keeps a block alive in the compiler's eyes, so malloc/free pairs are not optimised away.
inline void keep(void* p) { asm volatile("" : : "r"(p) : "memory"); }

int main(int argc, char** argv);

inline void print_identity() {
  std::printf("pid=%d main=%p\n", static_cast<int>(getpid()), reinterpret_cast<void*>(&main));
  std::fflush(stdout);
}
