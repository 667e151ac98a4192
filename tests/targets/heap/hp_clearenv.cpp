// hp_clearenv: re-executes itself as "hp_clearenv child" with an empty environment, as programs
// that sanitise their environment do. The first image has the interposer; the second cannot.
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "heap_target.hpp"

int main(int argc, char** argv) {
  print_identity();
  void* p = std::malloc(5555);
  keep(p);
  std::free(p);
  if (argc > 1 && std::strcmp(argv[1], "child") == 0) {
    std::printf("child environment=%s\n", std::getenv("LD_PRELOAD") ? "kept" : "cleared");
    return 0;
  }
  std::fflush(stdout);
  char arg[] = "child";
  char* args[] = {argv[0], arg, nullptr};
  char* no_env[] = {nullptr};
  execve("/proc/self/exe", args, no_env);
  return 127;
}
