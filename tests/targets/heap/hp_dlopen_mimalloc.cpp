// hp_dlopen_mimalloc PLUGIN: opens PLUGIN (hp_mimalloc_plugin.so) with RTLD_LOCAL, without
// linking mimalloc itself, runs its plugin_site and prints "plugin ok=1" when mi_malloc gave it a
// block.
#include <dlfcn.h>

#include <cstdio>

#include "heap_target.hpp"

int main(int argc, char** argv) {
  print_identity();
  if (argc != 2) return 2;
  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (plugin == nullptr) {
    std::printf("dlopen: %s\n", dlerror());
    return 1;
  }
  auto* site = reinterpret_cast<int (*)()>(dlsym(plugin, "plugin_site"));
  std::printf("plugin ok=%d\n", site != nullptr ? site() : -1);
  return 0;
}
