// heap/src/interposer/next_allocator.hpp
//
// The allocator that owns the blocks: the entry points and hooks allocate and free through
// g_next, never by name. glibc's __libc_* functions until the first allocation hook runs, which
// looks up the next definition of malloc behind the interposer (resolve_next_allocator). If it
// is not glibc's (libjemalloc linked dynamically has no __libc_* names, so __libc_malloc would
// hand out glibc blocks that jemalloc's operator delete later frees), every function is taken
// from the next definitions instead, so each block has one owner (docs/heap.md, "Other
// allocators").
#pragma once

#include <cstddef>

namespace sprof::heap::interposer {

struct Allocator {
  void* (*malloc)(size_t size);
  void* (*calloc)(size_t count, size_t size);
  void* (*realloc)(void* block, size_t size);
  void (*free)(void* block);
  void* (*memalign)(size_t alignment, size_t size);
  void* (*valloc)(size_t size);
  void* (*pvalloc)(size_t size);
  // Not called by the entry points (next_usable_size answers for the arena's blocks first);
  // nullptr in the constant table, since glibc has no other name for it than ours.
  size_t (*usable_size)(void* block);
};

// Written only while resolving (one thread, once); read by every call.
// (A declaration: bugprone-dynamic-static-initializers takes it for a definition.)
extern Allocator g_next;  // NOLINT(bugprone-dynamic-static-initializers)

// One of g_next's functions, e.g. next<&Allocator::malloc>()(size): a plain load on x86-64.
template <auto Allocator::*Function>
inline auto next() {
  return __atomic_load_n(&(g_next.*Function), __ATOMIC_RELAXED);
}

// Looks the next allocator up, once per process, at the first allocation hook (with the calling
// thread inside the hook). The only dlsym in an allocation: while it runs, this thread's nested
// allocations come from a static bootstrap arena (bootstrap_arena.hpp) and other threads wait.
void resolve_next_allocator_slow();
extern int g_next_resolved;  // 1 once g_next is final; NOLINT(bugprone-dynamic-static-initializers)
inline void resolve_next_allocator() {
  if (__builtin_expect(__atomic_load_n(&g_next_resolved, __ATOMIC_ACQUIRE) == 0, 0))
    resolve_next_allocator_slow();
}

// malloc_usable_size of any block: the arena's or the owner's.
size_t next_usable_size(void* block);

// The load address of the object (executable or library) that holds `address`; nullptr for none.
// dladdr: not for a hook's fast path.
const void* object_of(const void* address);

}  // namespace sprof::heap::interposer
