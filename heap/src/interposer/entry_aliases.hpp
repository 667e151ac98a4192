// heap/src/interposer/entry_aliases.hpp
//
// The interposer's exported entry points (entry_points.cpp) under hidden names. Inside a
// library loaded with dlopen, a reference to `malloc` binds to the first definition in the
// global scope, libc's; these names always mean the interposer's own functions (attach_entry.cpp
// writes them into a running program's bound slots).
#pragma once

#include <cstddef>

extern "C" {
void* sprof_heap_local_malloc(size_t size) noexcept;
void sprof_heap_local_free(void* block) noexcept;
void* sprof_heap_local_calloc(size_t count, size_t size) noexcept;
void* sprof_heap_local_realloc(void* block, size_t size) noexcept;
void* sprof_heap_local_reallocarray(void* block, size_t count, size_t size) noexcept;
int sprof_heap_local_posix_memalign(void** out, size_t alignment, size_t size) noexcept;
void* sprof_heap_local_aligned_alloc(size_t alignment, size_t size) noexcept;
void* sprof_heap_local_memalign(size_t alignment, size_t size) noexcept;
void* sprof_heap_local_valloc(size_t size) noexcept;
void* sprof_heap_local_pvalloc(size_t size) noexcept;
size_t sprof_heap_local_malloc_usable_size(void* block) noexcept;
}
