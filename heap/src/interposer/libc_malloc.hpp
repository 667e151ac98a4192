// heap/src/interposer/libc_malloc.hpp
//
// glibc's allocator under its internal names. glibc exports these (GLIBC_2.2.5, checked with
// `nm -D` on Debian 12's glibc 2.36: malloc, calloc, realloc, free, memalign, valloc and pvalloc
// are aliases of them at the same addresses; aligned_alloc is an alias of __libc_memalign).
// They are the allocator table's constant initial value (next_allocator.cpp): usable before any
// lookup, and kept unless the next malloc behind the interposer is another allocator's.
#pragma once

#include <cstddef>

// glibc's own names for its allocator: reserved identifiers, which only glibc may define, and
// it does; bugprone-reserved-identifier cannot tell a declaration of them from a new one.
// NOLINTBEGIN(bugprone-reserved-identifier)
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* block, size_t size);
void __libc_free(void* block);
void* __libc_memalign(size_t alignment, size_t size);
void* __libc_valloc(size_t size);
void* __libc_pvalloc(size_t size);
}
// NOLINTEND(bugprone-reserved-identifier)
