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
void* no_heap_realloc(void*, void*, size_t) { return no_malloc(0); }

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

// Stand-ins by shape, for a name with no definition anywhere.
void* no_realloc_n(void*, size_t, size_t) { return no_malloc(0); }
void* no_heap_calloc(void*, size_t, size_t) { return no_malloc(0); }
char* no_strdup(const char*) { return nullptr; }
char* no_strndup(const char*, size_t) { return nullptr; }
char* no_heap_strdup(void*, const char*) { return nullptr; }
char* no_heap_strndup(void*, const char*, size_t) { return nullptr; }
void no_free_size_aligned(void*, size_t, size_t) {}

}  // namespace

// next_<function>(): mi_<function>, looked up at its first call into a slot of its own (a
// zero-initialised pointer: no guard, no constructor).
#define SPROF_MI_NEXT(type, function, missing)               \
  type next_##function() {                                   \
    static type slot;                                        \
    return resolved<type>(slot, "mi_" #function, (missing)); \
  }

SPROF_MI_NEXT(Malloc, malloc, no_malloc)
SPROF_MI_NEXT(Calloc, calloc, no_calloc)
SPROF_MI_NEXT(Malloc, zalloc, no_malloc)
SPROF_MI_NEXT(Realloc, realloc, no_realloc)
SPROF_MI_NEXT(Calloc, malloc_aligned, no_calloc)
SPROF_MI_NEXT(Calloc, zalloc_aligned, no_calloc)
SPROF_MI_NEXT(Calloc, mallocn, no_calloc)
SPROF_MI_NEXT(Malloc, malloc_small, no_malloc)
SPROF_MI_NEXT(Malloc, zalloc_small, no_malloc)
SPROF_MI_NEXT(ReallocN, reallocn, no_realloc_n)
SPROF_MI_NEXT(Realloc, reallocf, no_realloc)
SPROF_MI_NEXT(Realloc, rezalloc, no_realloc)
SPROF_MI_NEXT(ReallocN, recalloc, no_realloc_n)
SPROF_MI_NEXT(ReallocN, realloc_aligned, no_realloc_n)
SPROF_MI_NEXT(Malloc, new, no_malloc)
SPROF_MI_NEXT(Malloc, new_nothrow, no_malloc)
SPROF_MI_NEXT(Calloc, new_aligned, no_calloc)
SPROF_MI_NEXT(Calloc, new_aligned_nothrow, no_calloc)
SPROF_MI_NEXT(Calloc, new_n, no_calloc)
SPROF_MI_NEXT(Realloc, new_realloc, no_realloc)
SPROF_MI_NEXT(ReallocN, new_reallocn, no_realloc_n)
SPROF_MI_NEXT(Strdup, strdup, no_strdup)
SPROF_MI_NEXT(Strndup, strndup, no_strndup)
SPROF_MI_NEXT(HeapMalloc, heap_malloc, no_realloc)
SPROF_MI_NEXT(HeapMalloc, heap_zalloc, no_realloc)
SPROF_MI_NEXT(HeapCalloc, heap_calloc, no_heap_calloc)
SPROF_MI_NEXT(HeapCalloc, heap_mallocn, no_heap_calloc)
SPROF_MI_NEXT(HeapMalloc, heap_malloc_small, no_realloc)
SPROF_MI_NEXT(HeapCalloc, heap_malloc_aligned, no_heap_calloc)
SPROF_MI_NEXT(HeapCalloc, heap_zalloc_aligned, no_heap_calloc)
SPROF_MI_NEXT(HeapRealloc, heap_realloc, no_heap_realloc)
SPROF_MI_NEXT(HeapRealloc, heap_reallocf, no_heap_realloc)
SPROF_MI_NEXT(HeapRealloc, heap_rezalloc, no_heap_realloc)
SPROF_MI_NEXT(HeapStrdup, heap_strdup, no_heap_strdup)
SPROF_MI_NEXT(HeapStrndup, heap_strndup, no_heap_strndup)
SPROF_MI_NEXT(Free, free, no_free)
SPROF_MI_NEXT(FreeWith, free_size, no_free_with)
SPROF_MI_NEXT(FreeWith, free_aligned, no_free_with)
SPROF_MI_NEXT(FreeSizeAligned, free_size_aligned, no_free_size_aligned)

#undef SPROF_MI_NEXT

}  // namespace sprof::heap::interposer::mimalloc
