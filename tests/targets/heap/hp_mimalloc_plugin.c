/* hp_mimalloc_plugin.so: a plugin that links libmimalloc and calls its API, for
 * hp_dlopen_mimalloc, which opens it with RTLD_LOCAL: libmimalloc is then outside the global
 * search order, yet the plugin's mi_* calls bind to the heap interposer's (the global scope comes
 * first), which must still find mimalloc's. plugin_site allocates one block of 12,345 B. */
#include <mimalloc.h>

__attribute__((noinline)) int plugin_site(void) {
  void* p = mi_malloc(12345);
  const int ok = p != 0;
  mi_free(p);
  return ok;
}
