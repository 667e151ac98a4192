// heap/src/interposer/mimalloc_api.cpp
#include "interposer/mimalloc_api.hpp"

#include <dlfcn.h>

#include <cerrno>

namespace sprof::heap::interposer::mimalloc {
namespace {

void* no_malloc(size_t) {
  errno = ENOMEM;
  return nullptr;
}
void* no_calloc(size_t, size_t) { return no_malloc(0); }
void* no_realloc(void*, size_t) { return no_malloc(0); }
void no_free(void*) {}
void no_free_with(void*, size_t) {}

// `name` in a libmimalloc that is loaded but not in the global search order: a library opened
// with RTLD_LOCAL (a plugin) that links it still binds its mi_* calls to the interposer's, since
// the global scope comes first. RTLD_NOLOAD only finds what is already loaded; the reference it
// takes is kept, so the function cannot be unloaded under a later call.
void* in_local_mimalloc(const char* name) {
  static const char* const kSonames[] = {"libmimalloc.so.2", "libmimalloc.so.1", "libmimalloc.so"};
  for (const char* soname : kSonames) {
    if (void* handle = ::dlopen(soname, RTLD_NOW | RTLD_NOLOAD)) return ::dlsym(handle, name);
  }
  return nullptr;
}

// The slot's function, looked up once. Two threads racing the first call both look it up and
// store the same address.
template <typename F>
F resolved(F& slot, const char* name, F missing) {
  F f = __atomic_load_n(&slot, __ATOMIC_ACQUIRE);
  if (f != nullptr) return f;
  f = reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
  if (f == nullptr) f = reinterpret_cast<F>(in_local_mimalloc(name));
  if (f == nullptr) f = missing;
  __atomic_store_n(&slot, f, __ATOMIC_RELEASE);
  return f;
}

Malloc g_malloc, g_zalloc;
Calloc g_calloc;
Realloc g_realloc;
MallocAligned g_malloc_aligned, g_zalloc_aligned;
Free g_free;
FreeWith g_free_size, g_free_aligned;

}  // namespace

Malloc next_malloc() { return resolved(g_malloc, "mi_malloc", no_malloc); }
Calloc next_calloc() { return resolved(g_calloc, "mi_calloc", no_calloc); }
Malloc next_zalloc() { return resolved(g_zalloc, "mi_zalloc", no_malloc); }
Realloc next_realloc() { return resolved(g_realloc, "mi_realloc", no_realloc); }
MallocAligned next_malloc_aligned() {
  return resolved(g_malloc_aligned, "mi_malloc_aligned", no_calloc);
}
MallocAligned next_zalloc_aligned() {
  return resolved(g_zalloc_aligned, "mi_zalloc_aligned", no_calloc);
}
Free next_free() { return resolved(g_free, "mi_free", no_free); }
FreeWith next_free_size() { return resolved(g_free_size, "mi_free_size", no_free_with); }
FreeWith next_free_aligned() { return resolved(g_free_aligned, "mi_free_aligned", no_free_with); }

}  // namespace sprof::heap::interposer::mimalloc
