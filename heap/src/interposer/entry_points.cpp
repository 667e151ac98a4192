// heap/src/interposer/entry_points.cpp
//
// The functions libsprof-heap.so exports in place of glibc's: malloc, calloc, realloc, free,
// posix_memalign, aligned_alloc, memalign, valloc, pvalloc, reallocarray. C++'s operator
// new/delete reach them through malloc/free (and aligned_alloc for aligned new).
// malloc_usable_size is wrapped only to answer for the bootstrap arena's blocks
// (next_allocator.hpp); every call ends in the allocator that owns the blocks.
//
// Each allocation entry point is a fast path: count the call, take the bytes off the thread's
// sampling countdown, and tail-call the owning allocator (g_next, next_allocator.hpp). When the
// countdown runs out (or the thread or process is not set up yet, or every call is recorded) it
// tail-calls a capture stub instead, which records the registers at this function's entry and runs
// the slow path (hooks.cpp). Both calls are in tail position so that the compiler emits `jmp` and
// no frame: the stub then sees the caller's registers and stack (tests/heap/interposer_test.cpp
// checks it).
//
// free() costs one load until the first sample, then one more (a 32 KiB counting filter that is
// zero for every block not sampled); only blocks the filter cannot rule out pay a hash probe.
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "interposer/fast_path.hpp"
#include "interposer/hooks.hpp"
#include "interposer/interposer.hpp"
#include "interposer/next_allocator.hpp"

#define SPROF_HEAP_EXPORT extern "C" __attribute__((visibility("default")))

using namespace sprof::heap::interposer;

SPROF_HEAP_EXPORT void* malloc(size_t size) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size))) return next<&Allocator::malloc>()(size);
  return sprof_heap_capture_malloc(size);
}

SPROF_HEAP_EXPORT void free(void* block) noexcept { return release(block); }

SPROF_HEAP_EXPORT void* calloc(size_t count, size_t size) noexcept {
  size_t total = 0;
  if (!__builtin_mul_overflow(count, size, &total) && SPROF_HEAP_LIKELY(take_fast(t_thread, total)))
    return next<&Allocator::calloc>()(count, size);
  return sprof_heap_capture_calloc(count, size);
}

SPROF_HEAP_EXPORT void* realloc(void* block, size_t size) noexcept {
  if (block != nullptr && size == 0) {
    // glibc frees the block and returns NULL: a free, not an allocation.
    release(block);
    return nullptr;
  }
  if (SPROF_HEAP_LIKELY(!free_needs_hook(block) && take_fast(t_thread, size)))
    return next<&Allocator::realloc>()(block, size);
  return sprof_heap_capture_realloc(block, size);
}

SPROF_HEAP_EXPORT void* reallocarray(void* block, size_t count, size_t size) noexcept {
  return sprof_heap_capture_reallocarray(block, count, size);
}

SPROF_HEAP_EXPORT int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  // glibc's rule: a power of two that is a multiple of sizeof(void*).
  if (alignment == 0 || alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0)
    return EINVAL;
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size))) {
    void* block = next<&Allocator::memalign>()(alignment, size);
    if (block == nullptr) return ENOMEM;
    *out = block;
    return 0;
  }
  return sprof_heap_capture_posix_memalign(out, alignment, size);
}

SPROF_HEAP_EXPORT void* aligned_alloc(size_t alignment, size_t size) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size)))
    return next<&Allocator::memalign>()(alignment, size);
  return sprof_heap_capture_aligned_alloc(alignment, size);
}

SPROF_HEAP_EXPORT void* memalign(size_t alignment, size_t size) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size)))
    return next<&Allocator::memalign>()(alignment, size);
  return sprof_heap_capture_memalign(alignment, size);
}

SPROF_HEAP_EXPORT void* valloc(size_t size) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size))) return next<&Allocator::valloc>()(size);
  return sprof_heap_capture_valloc(size);
}

SPROF_HEAP_EXPORT void* pvalloc(size_t size) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size))) return next<&Allocator::pvalloc>()(size);
  return sprof_heap_capture_pvalloc(size);
}

SPROF_HEAP_EXPORT size_t malloc_usable_size(void* block) noexcept {
  return next_usable_size(block);
}

// The hidden names of entry_aliases.hpp. GCC wants an alias to repeat its target's malloc and
// alloc_size attributes, which only help callers' optimisers; nothing calls these names.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmissing-attributes"
#endif
#define SPROF_HEAP_LOCAL_ALIAS(ret, name, params)                \
  extern "C" __attribute__((visibility("hidden"), alias(#name))) \
  ret sprof_heap_local_##name params noexcept;
SPROF_HEAP_LOCAL_ALIAS(void*, malloc, (size_t))
SPROF_HEAP_LOCAL_ALIAS(void, free, (void*))
SPROF_HEAP_LOCAL_ALIAS(void*, calloc, (size_t, size_t))
SPROF_HEAP_LOCAL_ALIAS(void*, realloc, (void*, size_t))
SPROF_HEAP_LOCAL_ALIAS(void*, reallocarray, (void*, size_t, size_t))
SPROF_HEAP_LOCAL_ALIAS(int, posix_memalign, (void**, size_t, size_t))
SPROF_HEAP_LOCAL_ALIAS(void*, aligned_alloc, (size_t, size_t))
SPROF_HEAP_LOCAL_ALIAS(void*, memalign, (size_t, size_t))
SPROF_HEAP_LOCAL_ALIAS(void*, valloc, (size_t))
SPROF_HEAP_LOCAL_ALIAS(void*, pvalloc, (size_t))
SPROF_HEAP_LOCAL_ALIAS(size_t, malloc_usable_size, (void*))
#undef SPROF_HEAP_LOCAL_ALIAS
