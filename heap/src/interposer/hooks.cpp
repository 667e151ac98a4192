// heap/src/interposer/hooks.cpp
//
// The slow paths: an allocation that is sampled (or may be: a new thread, record-all mode, a
// process not yet attached), and a free that may be of a sampled block. The allocation hooks
// are entered through the capture stubs (capture_stubs.S), which pass the user registers as
// they were at the stub's first instruction.
//
// Safety rules, all kept here:
// - no allocation; only async-signal-safe calls;
// - a call that arrives while the same thread is already inside a hook (a signal handler that
//   allocates, or libc calling back) passes straight through and is counted;
// - errno is what the allocator left, whatever the recording did;
// - a free is recorded before the block goes back to glibc, and an allocation after it came
//   from glibc, so the ring's order is the order of the address's owners.
#include "interposer/hooks.hpp"

#include <cerrno>
#include <cstdint>

#include "interposer/interposer.hpp"
#include "interposer/next_allocator.hpp"
#include "interposer/record_writes.hpp"
#include "interposer/sample_gap.hpp"

namespace sprof::heap::interposer {
namespace {

enum class Verdict : uint8_t { kNested, kPass, kSample };

// Enters the hook and says what this call can become: a call nested in a hook passes straight
// through, as does one of a process that is not (yet) attached; otherwise the thread's sampler
// decides once the allocation has succeeded (count_allocation).
Verdict enter(ThreadState& t) {
  if (t.in_hook) {
    ++t.pending_reentrant;
    return Verdict::kNested;
  }
  t.in_hook = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  // Before the first block is handed out; nested calls of the lookup take the branch above.
  resolve_next_allocator();
  Attachment state = attachment();
  if (state == Attachment::kNotYet) {
    try_attach();
    state = attachment();
  }
  if (state != Attachment::kAttached) {
    t.countdown = state == Attachment::kDisabled ? kNeverSample : 0;
    return Verdict::kPass;
  }
  refresh_thread(t);
  return Verdict::kSample;
}

// Counts an allocation that succeeded and says whether it is recorded, updating the thread's
// countdown. A failed one allocated nothing: it is not counted and takes nothing off the
// countdown (a failed malloc(1 TiB) must not show as 1 TiB allocated).
bool count_allocation(ThreadState& t, Verdict v, uint64_t size) {
  ++t.pending_allocations;
  t.pending_bytes += size;
  if (v != Verdict::kSample) return false;
  Process& p = g_process;
  if (p.sample_interval == 0) return true;
  if (t.countdown == 0) t.countdown = draw_sample_gap(t.random_state, p.sample_interval);
  if (size < t.countdown) {
    t.countdown -= size;
    return false;
  }
  t.countdown = draw_sample_gap(t.random_state, p.sample_interval);
  return true;
}

void leave(ThreadState& t, Verdict v, bool recorded) {
  if (v == Verdict::kNested) return;
  if (recorded && flush_due(t)) flush_counts(t);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t.in_hook = 0;
}

void record(ThreadState& t, const AllocEvent& event, const CapturedRegs& regs) {
  Process& p = g_process;
  ++t.pending_sampled;
  t.pending_sampled_bytes += event.size;
  uint16_t flags = 0;
  if (p.sample_interval == 0) {
    flags |= kFlagAllMode;
  } else if (p.tracked.insert(event.address)) {
    if (__atomic_load_n(&p.watch_frees, __ATOMIC_RELAXED) == 0)
      __atomic_store_n(&p.watch_frees, 1, __ATOMIC_RELEASE);
  } else {
    flags |= kFlagUntracked;
    __atomic_fetch_add(&p.header->counters.untracked_samples, 1, __ATOMIC_RELAXED);
  }
  if (!write_alloc_record(t, event, flags, regs) && (flags & kFlagUntracked) == 0 &&
      p.sample_interval != 0) {
    // Dropped: its free must not be recorded either.
    p.tracked.erase(event.address);
  }
}

// Runs `allocate`, then counts its result and records it when the thread's sampler says so.
template <typename Allocate>
void* sampled(AllocFunction function, uint64_t size, uint64_t alignment, uint64_t old_address,
              const CapturedRegs* regs, Allocate allocate) {
  ThreadState& t = t_thread;
  const Verdict v = enter(t);
  void* block = allocate();
  const bool recorded = block != nullptr && count_allocation(t, v, size);
  if (recorded) {
    const int saved_errno = errno;
    record(t, AllocEvent{function, reinterpret_cast<uint64_t>(block), size, old_address, alignment},
           *regs);
    errno = saved_errno;
  }
  leave(t, v, recorded);
  return block;
}

// A block passed to realloc/reallocarray stops being the block it was: record its free first
// (before glibc may hand the address to another thread). If realloc then fails the block lives
// on unrecorded; that only happens when memory is exhausted.
// With --heap-free-stacks that free gets the realloc's stack.
void forget_reallocated(void* block, const CapturedRegs* regs) {
  if (block != nullptr && __atomic_load_n(&g_process.watch_frees, __ATOMIC_RELAXED) != 0)
    free_slow_record_only(block, regs);
}

}  // namespace

void free_slow_record_only(void* block, const CapturedRegs* regs) {
  Process& p = g_process;
  const auto address = reinterpret_cast<uint64_t>(block);
  if (p.sample_interval != 0 && !p.tracked.erase(address)) return;
  const int saved_errno = errno;
  ThreadState& t = t_thread;
  refresh_thread(t);
  write_free_record(t, address, p.free_stacks ? regs : nullptr);
  errno = saved_errno;
}

void free_slow(void* block) {
  free_slow_record_only(block, nullptr);
  next<&Allocator::free>()(block);
}

}  // namespace sprof::heap::interposer

using sprof::heap::AllocFunction;
using sprof::heap::CapturedRegs;
using namespace sprof::heap::interposer;

extern "C" {

void sprof_heap_free_hook(void* block, uint64_t, uint64_t, const CapturedRegs* regs) {
  free_slow_record_only(block, regs);
  next<&Allocator::free>()(block);
}

void* sprof_heap_malloc_hook(size_t size, uint64_t, uint64_t, const CapturedRegs* regs) {
  return sampled(AllocFunction::kMalloc, size, 0, 0, regs,
                 [&] { return next<&Allocator::malloc>()(size); });
}

void* sprof_heap_calloc_hook(size_t count, size_t size, uint64_t, const CapturedRegs* regs) {
  size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) return next<&Allocator::calloc>()(count, size);
  return sampled(AllocFunction::kCalloc, total, 0, 0, regs,
                 [&] { return next<&Allocator::calloc>()(count, size); });
}

void* sprof_heap_realloc_hook(void* block, size_t size, uint64_t, const CapturedRegs* regs) {
  forget_reallocated(block, regs);
  return sampled(AllocFunction::kRealloc, size, 0, reinterpret_cast<uint64_t>(block), regs,
                 [&] { return next<&Allocator::realloc>()(block, size); });
}

void* sprof_heap_reallocarray_hook(void* block, size_t count, size_t size,
                                   const CapturedRegs* regs) {
  size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  forget_reallocated(block, regs);
  return sampled(AllocFunction::kReallocArray, total, 0, reinterpret_cast<uint64_t>(block), regs,
                 [&] { return next<&Allocator::realloc>()(block, total); });
}

int sprof_heap_posix_memalign_hook(void** out, size_t alignment, size_t size,
                                   const CapturedRegs* regs) {
  void* block = sampled(AllocFunction::kPosixMemalign, size, alignment, 0, regs,
                        [&] { return next<&Allocator::memalign>()(alignment, size); });
  if (block == nullptr) return ENOMEM;
  *out = block;
  return 0;
}

void* sprof_heap_aligned_alloc_hook(size_t alignment, size_t size, uint64_t,
                                    const CapturedRegs* regs) {
  return sampled(AllocFunction::kAlignedAlloc, size, alignment, 0, regs,
                 [&] { return next<&Allocator::memalign>()(alignment, size); });
}

void* sprof_heap_memalign_hook(size_t alignment, size_t size, uint64_t, const CapturedRegs* regs) {
  return sampled(AllocFunction::kMemalign, size, alignment, 0, regs,
                 [&] { return next<&Allocator::memalign>()(alignment, size); });
}

void* sprof_heap_valloc_hook(size_t size, uint64_t, uint64_t, const CapturedRegs* regs) {
  return sampled(AllocFunction::kValloc, size, 0, 0, regs,
                 [&] { return next<&Allocator::valloc>()(size); });
}

void* sprof_heap_pvalloc_hook(size_t size, uint64_t, uint64_t, const CapturedRegs* regs) {
  return sampled(AllocFunction::kPvalloc, size, 0, 0, regs,
                 [&] { return next<&Allocator::pvalloc>()(size); });
}

void* sprof_heap_mi_call_hook(const MimallocCall* call, uint64_t, uint64_t,
                              const CapturedRegs* regs) {
  forget_reallocated(call->old_block, regs);
  return sampled(call->function, call->size, call->alignment,
                 reinterpret_cast<uint64_t>(call->old_block), regs,
                 [&] { return call->invoke(call->context); });
}

}  // extern "C"
