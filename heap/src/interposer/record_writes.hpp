// heap/src/interposer/record_writes.hpp
//
// Turns one event into one ring record (format: sprof/heap/heap_ring_format.hpp). The callers
// (hooks.cpp, process.cpp) decide what to record; these functions only fill records, copying
// the stack for allocations (and for frees given their registers: --heap-free-stacks). A full ring
// drops the record (counted by RingWriter::reserve).
#pragma once

#include <cstdint>

#include "interposer/interposer.hpp"

namespace sprof::heap::interposer {

struct AllocEvent {
  AllocFunction function;
  uint64_t address;
  uint64_t size;
  uint64_t old_address;  // realloc only
  uint64_t alignment;
};

// Returns false when the record was dropped (ring full).
bool write_alloc_record(ThreadState& t, const AllocEvent& event, uint16_t flags,
                        const CapturedRegs& regs);
// `regs` null: a free record without stack.
bool write_free_record(ThreadState& t, uint64_t address, const CapturedRegs* regs);
void write_attach_record(ThreadState& t, AttachHow how, uint32_t ppid);

}  // namespace sprof::heap::interposer
