// heap/src/interposer/libc_malloc.hpp
//
// glibc's allocator under its internal names. glibc exports these (GLIBC_2.2.5, checked with
// `nm -D` on Debian 12's glibc 2.36: malloc, calloc, realloc, free, memalign, valloc and pvalloc
// are aliases of them at the same addresses; aligned_alloc is an alias of __libc_memalign).
// Calling them directly means no dlsym(RTLD_NEXT) lookup, so no bootstrap problem: dlsym may
// call calloc, which would need the interposer to be resolved already. The cost is that the
// interposer always hands blocks to glibc's allocator, even if another malloc replacement sits
// behind it in the search order (docs/heap.md, "Limitations").
//
// posix_memalign and reallocarray have no public __libc_ name: the entry points implement them
// on __libc_memalign and __libc_realloc with glibc's argument checks.
#pragma once

#include <cstddef>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* block, size_t size);
void __libc_free(void* block);
void* __libc_memalign(size_t alignment, size_t size);
void* __libc_valloc(size_t size);
void* __libc_pvalloc(size_t size);
}
