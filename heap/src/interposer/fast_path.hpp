// heap/src/interposer/fast_path.hpp
//
// The entry points' fast path (entry_points.cpp for glibc's API, mimalloc_entry_points.cpp for
// mimalloc's): whether a call can go straight to the allocator, counted, or must take the slow
// path that records it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "interposer/hooks.hpp"
#include "interposer/interposer.hpp"
#include "interposer/next_allocator.hpp"

namespace sprof::heap::interposer {

// True when this allocation needs no recording: the common case, kept inline and tiny.
// The slow path counts its calls itself, once they succeeded. This path counts before the call
// it tail-calls, which is right in practice: it only takes requests smaller than the countdown
// (a sample gap, about the sampling interval), and those fail only when memory is exhausted; a
// large request, which may well fail, goes through the slow path.
inline bool take_fast(ThreadState& t, size_t size) {
  if (SPROF_HEAP_UNLIKELY(size >= t.countdown)) return false;
  t.countdown -= size;
  ++t.pending_allocations;
  t.pending_bytes += size;
  return true;
}

inline bool watching_frees() {
  return __atomic_load_n(&g_process.watch_frees, __ATOMIC_RELAXED) != 0;
}

// Whether a free must go to the slow path: in record-all mode always, when sampling only if the
// block may be a live sampled one (the address set's filter: one load from 32 KiB).
inline bool free_needs_hook(void* block) {
  if (SPROF_HEAP_LIKELY(block == nullptr || !watching_frees())) return false;
  const Process& p = g_process;
  return p.sample_interval == 0 || p.tracked.may_contain(reinterpret_cast<uint64_t>(block));
}

// A free that may be recorded goes through a capture stub only when the user asked for free
// stacks: without --heap-free-stacks a recorded free costs what it did (no stack copy).
inline void release(void* block) {
  if (SPROF_HEAP_UNLIKELY(free_needs_hook(block))) {
    if (g_process.free_stacks) return sprof_heap_capture_free(block);
    return free_slow(block);
  }
  return next<&Allocator::free>()(block);
}

}  // namespace sprof::heap::interposer
