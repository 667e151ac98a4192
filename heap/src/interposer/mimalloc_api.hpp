// heap/src/interposer/mimalloc_api.hpp
//
// mimalloc's own functions behind the interposer's: the definitions that come after
// libsprof-heap.so in symbol lookup (libmimalloc.so when the program links it), found with
// dlsym(RTLD_NEXT) at their first call and kept. Only programs that call mimalloc's API reach
// this, so no other program pays a lookup; a call into the interposer's malloc from dlsym
// passes through as usual (no mimalloc function is involved, so there is no recursion).
#pragma once

#include <cstddef>

namespace sprof::heap::interposer::mimalloc {

// Signatures by shape; `void*` stands for mi_heap_t*.
using Malloc = void* (*)(size_t);
using Calloc = void* (*)(size_t, size_t);  // also (size, alignment) and (count, size)
using Realloc = void* (*)(void*, size_t);
using ReallocN = void* (*)(void*, size_t,
                           size_t);  // (block, count, size), (block, size, alignment)
using HeapMalloc = void* (*)(void*, size_t);
using HeapCalloc = void* (*)(void*, size_t, size_t);  // also (heap, size, alignment)
using HeapRealloc = void* (*)(void*, void*, size_t);
using Strdup = char* (*)(const char*);
using Strndup = char* (*)(const char*, size_t);
using HeapStrdup = char* (*)(void*, const char*);
using HeapStrndup = char* (*)(void*, const char*, size_t);
using Free = void (*)(void*);
using FreeWith = void (*)(void*, size_t);                 // mi_free_size, mi_free_aligned
using FreeSizeAligned = void (*)(void*, size_t, size_t);  // mi_free_size_aligned

// Each returns the next definition of the mi_* function it is named after, or else the one in a
// libmimalloc loaded outside the global search order (a plugin's dependency). Where there is
// none, a stand-in that fails allocations with ENOMEM and frees nothing: no call ever jumps to a
// null pointer.
Malloc next_malloc();
Calloc next_calloc();
Malloc next_zalloc();
Realloc next_realloc();
Calloc next_malloc_aligned();
Calloc next_zalloc_aligned();
Calloc next_mallocn();
Malloc next_malloc_small();
Malloc next_zalloc_small();
ReallocN next_reallocn();
Realloc next_reallocf();
Realloc next_rezalloc();
ReallocN next_recalloc();
ReallocN next_realloc_aligned();
Malloc next_new();
Malloc next_new_nothrow();
Calloc next_new_aligned();
Calloc next_new_aligned_nothrow();
Calloc next_new_n();
Realloc next_new_realloc();
ReallocN next_new_reallocn();
Strdup next_strdup();
Strndup next_strndup();
HeapMalloc next_heap_malloc();
HeapMalloc next_heap_zalloc();
HeapCalloc next_heap_calloc();
HeapCalloc next_heap_mallocn();
HeapMalloc next_heap_malloc_small();
HeapCalloc next_heap_malloc_aligned();
HeapCalloc next_heap_zalloc_aligned();
HeapRealloc next_heap_realloc();
HeapRealloc next_heap_reallocf();
HeapRealloc next_heap_rezalloc();
HeapStrdup next_heap_strdup();
HeapStrndup next_heap_strndup();
Free next_free();
FreeWith next_free_size();
FreeWith next_free_aligned();
FreeSizeAligned next_free_size_aligned();

}  // namespace sprof::heap::interposer::mimalloc
