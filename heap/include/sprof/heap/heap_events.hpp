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

#include "sprof/heap/allocation.hpp"
#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap {

// A decoded allocation record: the `Allocation`, who made it and when, and its stack copy.
struct HeapAlloc : Allocation {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint32_t pid = 0;
  uint32_t tid = 0;
  bool is_realloc = false;
  uint64_t stack_end = 0;          // end of the stack mapping; 0 when unknown
  std::span<const uint8_t> stack;  // memory at [regs.sp, regs.sp + stack.size())
};

struct HeapFree {
  uint64_t time_ns = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t address = 0;
  uint16_t flags = 0;  // kFlagFreeStack: regs, stack_end and stack are the free's
  CapturedRegs regs{};
  uint64_t stack_end = 0;
  std::span<const uint8_t> stack;

  bool has_stack() const { return (flags & kFlagFreeStack) != 0; }
};

// A process started writing to the ring: a new program image (kStart: the launched program or
// an exec'd descendant that kept LD_PRELOAD) or a fork child (kFork).
struct HeapAttach {
  uint64_t time_ns = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t ppid = 0;
  AttachHow how = AttachHow::kStart;
  bool malloc_bypassed = false;       // kAttachMallocBypassed: nothing of it is recorded
  bool foreign_operator_new = false;  // kAttachForeignOperatorNew: `new` is not recorded
  std::string_view exe;               // /proc/self/exe of the process (may be empty)
};

using HeapEvent = std::variant<HeapAlloc, HeapFree, HeapAttach>;

}  // namespace sprof::heap
