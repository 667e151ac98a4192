// heap/src/interposer/interposer.hpp
//
// State shared by the interposer's entry points (entry_points.cpp), its slow paths (hooks.cpp)
// and its process lifecycle (process.cpp). Everything here is plain data in .bss and TLS:
// nothing is constructed, so the interposer works before any constructor has run, and nothing
// is destroyed, so it keeps working while other libraries' destructors and TLS destructors
// still call free().
//
// TLS uses the initial-exec model: a fixed offset from %fs, no __tls_get_addr (which may
// allocate). That is valid because the library is loaded at startup (LD_PRELOAD), or, when sprof
// attaches to a running program, by a dlopen that glibc serves from its static TLS surplus
// (attach_entry.cpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "interposer/address_set.hpp"
#include "interposer/ring_writer.hpp"
#include "sprof/heap/heap_ring_format.hpp"

#define SPROF_HEAP_TLS __attribute__((tls_model("initial-exec")))
#define SPROF_HEAP_LIKELY(x) __builtin_expect(!!(x), 1)
#define SPROF_HEAP_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace sprof::heap::interposer {

// A thread never samples again once this is its countdown (the process is not profiled).
inline constexpr uint64_t kNeverSample = ~uint64_t{0};

enum class Attachment : int {
  kNotYet = 0,     // not tried, or tried before libc had set up the environment
  kAttaching = 1,  // one thread is mapping the ring; others pass through meanwhile
  kAttached = 2,
  kDisabled = 3,  // no ring named, or it could not be used: pass everything through
};

struct StackRange {
  uint64_t start;
  uint64_t end;
};

struct ThreadState {
  // Bytes this thread may still allocate before the next sample. 0 sends every call to the slow
  // path (a new thread, record-all mode, a process not yet attached).
  uint64_t countdown;
  // Counted here, added to the ring's totals in batches (flush_counts): shared atomics on every
  // sample cost more than the rest of recording it.
  uint64_t pending_allocations;
  uint64_t pending_bytes;
  uint64_t pending_reentrant;
  uint64_t pending_sampled;
  uint64_t pending_sampled_bytes;
  uint64_t pending_free_records;
  uint64_t random_state;
  uint32_t pid;
  uint32_t tid;
  uint32_t generation;  // Process::generation when pid/tid were read; 0 = never
  uint8_t in_hook;      // set while a slow path runs: a nested call passes straight through
  // Set while a call of mimalloc's API runs (mimalloc_entry_points.cpp): libmimalloc calls its
  // own exported functions through its PLT, which binds them to the entry points again; such a
  // nested call is part of the outer one and passes through uncounted.
  uint8_t in_mimalloc;
  uint8_t resolving_allocator;  // this thread is looking up the next allocator (next_allocator.cpp)
  uint8_t exit_flush_armed;
  uint8_t next_stack_slot;
  StackRange stacks[2];  // mappings that held this thread's sp (its stack, an alt stack)
};

struct Process {
  int attachment;  // Attachment, accessed atomically
  // Set once, when free() must start looking at pointers: at the first sample in sampling
  // mode, at attach in record-all mode. Read by every free() and (almost) never written, so
  // its cache line stays shared between cores. (A count of live sampled blocks would change at
  // every sample and make that line bounce; docs/heap.md, "Sampling".)
  uint64_t watch_frees;
  RingHeader* header;
  RingWriter writer;
  AddressSet tracked;
  uint64_t sample_interval;  // 0: record every call
  uint32_t stack_copy_bytes;
  bool free_stacks;  // kOptionFreeStacks: recorded frees go through a capture stub too
  bool copy_stacks;  // kOptionCopyStacks: records copy their stacks, never walk them
  // Bumped in a fork child: tells each thread its cached pid/tid are stale.
  uint32_t generation;
  unsigned exit_key;  // pthread_key_t whose destructor flushes a dying thread's counts
  bool exit_key_created;
  bool atfork_registered;
  // Flags of every attach record this image writes: calls that bypass the interposer
  // (allocator_check.hpp), known once the constructor has run.
  uint16_t attach_flags;
};

static_assert(std::is_trivially_default_constructible_v<Process>);
static_assert(std::is_trivially_destructible_v<Process>);
static_assert(std::is_trivially_default_constructible_v<ThreadState>);
static_assert(std::is_trivially_destructible_v<ThreadState>);

// Declarations of trivially constructed objects (asserted above), defined in process.cpp:
// bugprone-dynamic-static-initializers takes them for definitions, a false positive.
// NOLINTBEGIN(bugprone-dynamic-static-initializers)
extern Process g_process;
extern __thread ThreadState t_thread SPROF_HEAP_TLS;
// NOLINTEND(bugprone-dynamic-static-initializers)

inline Attachment attachment() {
  return static_cast<Attachment>(__atomic_load_n(&g_process.attachment, __ATOMIC_ACQUIRE));
}

// process.cpp
void try_attach();
// Maps the ring at `path` and announces the process with `how`; the caller has moved
// `attachment` to kAttaching. False (and kDisabled) when the ring cannot be used.
bool attach_holding(const char* path, AttachHow how);
// Registers the fork-child handler once; never from inside malloc (process.cpp says why).
void register_fork_handler();
void refresh_thread(ThreadState& t);
void flush_counts(ThreadState& t);
// Whether enough has been counted to be worth adding to the totals now.
inline bool flush_due(const ThreadState& t) {
  return t.pending_sampled + t.pending_free_records >= 32 || t.pending_allocations >= (1u << 20);
}
uint64_t monotonic_ns();

}  // namespace sprof::heap::interposer
