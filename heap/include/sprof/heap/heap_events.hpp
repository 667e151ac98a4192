// sprof/heap/heap_events.hpp
//
// Typed, validated events decoded from heap ring records (decode_record in
// sprof/heap/record_decoder.hpp). They borrow the record's bytes (stack copy, executable path):
// valid only as long as the bytes they were decoded from.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <variant>

#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap {

// An allocation (malloc & co) or the new block of a realloc. For CFI unwinding, `regs` and
// `stack` are the state at the interposer's capture stub (see CapturedRegs): ip is in
// libsprof-heap.so, the first 8 stack bytes are the return address into the caller.
struct HeapAlloc {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t address = 0;
  uint64_t size = 0;         // bytes requested
  uint64_t old_address = 0;  // realloc: the block passed in (its free is a separate HeapFree)
  uint64_t alignment = 0;
  AllocFunction function = AllocFunction::kMalloc;
  bool is_realloc = false;
  uint16_t flags = 0;        // kFlag* of heap_ring_format.hpp
  CapturedRegs regs{};
  uint64_t stack_end = 0;    // end of the stack mapping; 0 when unknown
  std::span<const uint8_t> stack;  // memory at [regs.sp, regs.sp + stack.size())

  bool stack_reached_end() const { return (flags & kFlagStackReachedEnd) != 0; }
  // Sampled, but its free will not be recorded (the interposer's address set was full).
  bool untracked() const { return (flags & kFlagUntracked) != 0; }
  bool all_mode() const { return (flags & kFlagAllMode) != 0; }
};

struct HeapFree {
  uint64_t time_ns = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t address = 0;
};

// A process started writing to the ring: a new program image (kStart: the launched program or
// an exec'd descendant that kept LD_PRELOAD) or a fork child (kFork).
struct HeapAttach {
  uint64_t time_ns = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t ppid = 0;
  AttachHow how = AttachHow::kStart;
  std::string_view exe;  // /proc/self/exe of the process (may be empty)
};

using HeapEvent = std::variant<HeapAlloc, HeapFree, HeapAttach>;

}  // namespace sprof::heap
