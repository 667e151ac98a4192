// heap/src/interposer/hooks.hpp
//
// The interposer's slow paths (hooks.cpp). The allocation hooks have C linkage because the
// capture stubs (capture_stubs.S) call them: each receives the public function's arguments in
// the first registers and, as its fourth argument, the registers the stub captured.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap::interposer {

using sprof::heap::CapturedRegs;

// free(): records the free if the block is sampled (or always in record-all mode), then frees.
// No stack: with --heap-free-stacks, free() goes through sprof_heap_capture_free instead.
void free_slow(void* block);
// The recording half alone (realloc records the old block's free before reallocating). `regs`
// are the capture stub's, or null; the record carries the stack only when the ring asks for free
// stacks (Process::free_stacks) and `regs` is given.
void free_slow_record_only(void* block, const CapturedRegs* regs);

// One call of mimalloc's API on its slow path: what the record says, and the real call, made
// through `invoke(context)` (mimalloc_entry_points.cpp builds it on its stack). Not-null
// `old_block`: the block a re* function replaces, recorded as freed first, as realloc's.
struct MimallocCall {
  AllocFunction function;
  uint64_t size;  // bytes requested
  uint64_t alignment;
  void* old_block;
  void* (*invoke)(void* context);
  void* context;
};

}  // namespace sprof::heap::interposer

extern "C" {
using sprof::heap::CapturedRegs;
// free() with --heap-free-stacks, for a block that may be recorded: records it with its stack.
void sprof_heap_free_hook(void* block, uint64_t, uint64_t, const CapturedRegs* regs);
void* sprof_heap_malloc_hook(size_t size, uint64_t, uint64_t, const CapturedRegs* regs);
void* sprof_heap_calloc_hook(size_t count, size_t size, uint64_t, const CapturedRegs* regs);
void* sprof_heap_realloc_hook(void* block, size_t size, uint64_t, const CapturedRegs* regs);
void* sprof_heap_reallocarray_hook(void* block, size_t count, size_t size,
                                   const CapturedRegs* regs);
int sprof_heap_posix_memalign_hook(void** out, size_t alignment, size_t size,
                                   const CapturedRegs* regs);
void* sprof_heap_aligned_alloc_hook(size_t alignment, size_t size, uint64_t,
                                    const CapturedRegs* regs);
void* sprof_heap_memalign_hook(size_t alignment, size_t size, uint64_t, const CapturedRegs* regs);
void* sprof_heap_valloc_hook(size_t size, uint64_t, uint64_t, const CapturedRegs* regs);
void* sprof_heap_pvalloc_hook(size_t size, uint64_t, uint64_t, const CapturedRegs* regs);
// mimalloc's API (mimalloc_entry_points.cpp): the blocks are mimalloc's. One hook for every
// function, told by `call` what was asked and how to make the real call.
void* sprof_heap_mi_call_hook(const sprof::heap::interposer::MimallocCall* call, uint64_t, uint64_t,
                              const CapturedRegs* regs);

// The capture stubs, declared with the public functions' signatures so that an entry point can
// tail-call them with its arguments untouched.
void* sprof_heap_capture_malloc(size_t size);
void sprof_heap_capture_free(void* block);
void* sprof_heap_capture_calloc(size_t count, size_t size);
void* sprof_heap_capture_realloc(void* block, size_t size);
void* sprof_heap_capture_reallocarray(void* block, size_t count, size_t size);
int sprof_heap_capture_posix_memalign(void** out, size_t alignment, size_t size);
void* sprof_heap_capture_aligned_alloc(size_t alignment, size_t size);
void* sprof_heap_capture_memalign(size_t alignment, size_t size);
void* sprof_heap_capture_valloc(size_t size);
void* sprof_heap_capture_pvalloc(size_t size);
void* sprof_heap_capture_mi_call(const sprof::heap::interposer::MimallocCall* call);
}
