// heap/src/interposer/mimalloc_entry_points.cpp
//
// mimalloc's own API, for programs that link libmimalloc dynamically and call it directly:
// mi_malloc, mi_calloc, mi_zalloc, mi_realloc, mi_malloc_aligned, mi_zalloc_aligned, and the
// frees mi_free, mi_free_size, mi_free_aligned. The same fast path and sampling as glibc's entry
// points (entry_points.cpp), but the blocks are mimalloc's: every call ends in the real function
// (mimalloc_api.hpp), so the rest of mimalloc's API (mi_usable_size, heaps, ...) keeps working on
// them. Programs that never call mimalloc never reach this file. Their frees are recorded without
// a stack even with --heap-free-stacks (no capture stubs for them).
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "interposer/fast_path.hpp"
#include "interposer/hooks.hpp"
#include "interposer/interposer.hpp"
#include "interposer/mimalloc_api.hpp"

#define SPROF_HEAP_EXPORT extern "C" __attribute__((visibility("default")))

using namespace sprof::heap::interposer;
namespace mi = sprof::heap::interposer::mimalloc;

SPROF_HEAP_EXPORT void* mi_malloc(size_t size) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size))) return mi::next_malloc()(size);
  return sprof_heap_capture_mi_malloc(size);
}

SPROF_HEAP_EXPORT void* mi_zalloc(size_t size) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size))) return mi::next_zalloc()(size);
  return sprof_heap_capture_mi_zalloc(size);
}

SPROF_HEAP_EXPORT void* mi_calloc(size_t count, size_t size) noexcept {
  size_t total = 0;
  if (!__builtin_mul_overflow(count, size, &total) && SPROF_HEAP_LIKELY(take_fast(t_thread, total)))
    return mi::next_calloc()(count, size);
  return sprof_heap_capture_mi_calloc(count, size);
}

SPROF_HEAP_EXPORT void* mi_realloc(void* block, size_t size) noexcept {
  // Unlike glibc's, mi_realloc(block, 0) returns a block: no special case.
  if (SPROF_HEAP_LIKELY(!free_needs_hook(block) && take_fast(t_thread, size)))
    return mi::next_realloc()(block, size);
  return sprof_heap_capture_mi_realloc(block, size);
}

SPROF_HEAP_EXPORT void* mi_malloc_aligned(size_t size, size_t alignment) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size)))
    return mi::next_malloc_aligned()(size, alignment);
  return sprof_heap_capture_mi_malloc_aligned(size, alignment);
}

SPROF_HEAP_EXPORT void* mi_zalloc_aligned(size_t size, size_t alignment) noexcept {
  if (SPROF_HEAP_LIKELY(take_fast(t_thread, size)))
    return mi::next_zalloc_aligned()(size, alignment);
  return sprof_heap_capture_mi_zalloc_aligned(size, alignment);
}

SPROF_HEAP_EXPORT void mi_free(void* block) noexcept {
  if (SPROF_HEAP_UNLIKELY(free_needs_hook(block))) free_slow_record_only(block, nullptr);
  mi::next_free()(block);
}

SPROF_HEAP_EXPORT void mi_free_size(void* block, size_t size) noexcept {
  if (SPROF_HEAP_UNLIKELY(free_needs_hook(block))) free_slow_record_only(block, nullptr);
  mi::next_free_size()(block, size);
}

SPROF_HEAP_EXPORT void mi_free_aligned(void* block, size_t alignment) noexcept {
  if (SPROF_HEAP_UNLIKELY(free_needs_hook(block))) free_slow_record_only(block, nullptr);
  mi::next_free_aligned()(block, alignment);
}
