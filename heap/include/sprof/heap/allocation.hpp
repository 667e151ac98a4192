// sprof/heap/allocation.hpp
//
// What an allocation record of the heap ring says about the allocation, once checked
// (record_decoder.hpp): the part that the decoded `HeapAlloc` (heap_events.hpp, borrowing the
// ring's bytes) and the converter's `perf::HeapAllocRecord` (sprof/perf/records.hpp, owning its
// stack copy) share. Both are made of it, so handing an allocation from the ring to the converter
// copies this struct whole instead of field by field. Plain data over heap_ring_format.hpp's
// types, like that header; the interposer does not use it.
#pragma once

#include <cstdint>

#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap {

// An allocation (malloc & co) or the new block of a realloc. `regs` are the state at the
// interposer's capture stub (see CapturedRegs): ip is in libsprof-heap.so, and the stack copied
// from `regs.sp` starts with the return address into the caller.
struct Allocation {
  uint64_t address = 0;
  uint64_t size = 0;         // bytes requested
  uint64_t old_address = 0;  // realloc: the block passed in (its free is a separate record)
  uint64_t alignment = 0;    // requested alignment; 0 when the API takes none
  AllocFunction function = AllocFunction::kMalloc;
  uint16_t flags = 0;  // kFlag* of heap_ring_format.hpp
  CapturedRegs regs{};

  bool stack_reached_end() const { return (flags & kFlagStackReachedEnd) != 0; }
  // Sampled, but its free will not be recorded (the interposer's address set was full).
  bool untracked() const { return (flags & kFlagUntracked) != 0; }
  bool all_mode() const { return (flags & kFlagAllMode) != 0; }
  // The stack is the return addresses the interposer walked, not a copy of memory.
  bool walked_stack() const { return (flags & kFlagWalkedStack) != 0; }
};

}  // namespace sprof::heap
