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

using Malloc = void* (*)(size_t);
using Calloc = void* (*)(size_t, size_t);
using Realloc = void* (*)(void*, size_t);
using MallocAligned = void* (*)(size_t, size_t);
using Free = void (*)(void*);
using FreeWith = void (*)(void*, size_t);  // mi_free_size, mi_free_aligned

// Each returns the next definition, or else the one in a libmimalloc loaded outside the global
// search order (a plugin's dependency). Where there is none, a stand-in that fails allocations
// with ENOMEM and frees nothing: no call ever jumps to a null pointer.
Malloc next_malloc();
Calloc next_calloc();
Malloc next_zalloc();
Realloc next_realloc();
MallocAligned next_malloc_aligned();
MallocAligned next_zalloc_aligned();
Free next_free();
FreeWith next_free_size();
FreeWith next_free_aligned();

}  // namespace sprof::heap::interposer::mimalloc
