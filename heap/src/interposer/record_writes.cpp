// heap/src/interposer/record_writes.cpp
#include "interposer/record_writes.hpp"

#include <unistd.h>

#include <cstring>

#include "interposer/maps_scanner.hpp"
#include "interposer/own_stack.hpp"

namespace sprof::heap::interposer {
namespace {

EventFields event_fields(const ThreadState& t) { return EventFields{monotonic_ns(), t.pid, t.tid}; }

// The end of the mapping that holds `sp`, from the thread's cache or /proc/self/maps. The copy
// runs from sp upwards, so only the end matters; every byte in [sp, end) is mapped as long as
// the thread runs on that stack, and it does while we copy.
bool stack_end(ThreadState& t, uint64_t sp, uint64_t& end) {
  for (const StackRange& r : t.stacks) {
    if (r.start <= sp && sp < r.end) {
      end = r.end;
      return true;
    }
  }
  __atomic_fetch_add(&g_process.header->counters.stack_lookups, 1, __ATOMIC_RELAXED);
  StackRange found{};
  if (!find_mapping(sp, found.start, found.end)) return false;
  t.stacks[t.next_stack_slot++ & 1] = found;
  end = found.end;
  return true;
}

// How much of the stack above `regs.sp` a record copies (stack_copy_bytes at most, up to the
// stack's end), with the flags that say so.
struct StackCopy {
  uint64_t end = 0;
  uint32_t bytes = 0;
  uint16_t flags = 0;
};

StackCopy plan_stack_copy(ThreadState& t, const CapturedRegs& regs) {
  Process& p = g_process;
  StackCopy copy;
  if (p.stack_copy_bytes == 0) return copy;
  if (!stack_end(t, regs.sp, copy.end)) {
    copy.flags |= kFlagNoStack;
    __atomic_fetch_add(&p.header->counters.stack_copy_failures, 1, __ATOMIC_RELAXED);
    return copy;
  }
  const uint64_t available = copy.end - regs.sp;
  copy.bytes = available < p.stack_copy_bytes ? static_cast<uint32_t>(available & ~7ULL)
                                              : p.stack_copy_bytes;
  if (regs.sp + copy.bytes == copy.end) copy.flags |= kFlagStackReachedEnd;
  return copy;
}

// The stack a record carries: the return addresses walked in the process when the walk reached
// the outermost frame, else the copy above.
struct RecordStack {
  uint64_t end = 0;
  uint32_t bytes = 0;
  uint16_t flags = 0;
  const void* source = nullptr;
};

RecordStack plan_record_stack(ThreadState& t, const CapturedRegs& regs,
                              uint64_t (&pcs)[kMaxWalkedFrames]) {
  Process& p = g_process;
  const StackCopy copy = plan_stack_copy(t, regs);
  if (copy.bytes > 0 && !p.copy_stacks) {
    if (const uint32_t frames = walk_own_stack(regs, copy.end, pcs); frames > 0) {
      return RecordStack{copy.end, frames * static_cast<uint32_t>(sizeof(uint64_t)),
                         kFlagWalkedStack, pcs};
    }
    __atomic_fetch_add(&p.header->counters.walk_fallbacks, 1, __ATOMIC_RELAXED);
  }
  return RecordStack{copy.end, copy.bytes, copy.flags, reinterpret_cast<const void*>(regs.sp)};
}

}  // namespace

bool write_alloc_record(ThreadState& t, const AllocEvent& event, uint16_t flags,
                        const CapturedRegs& regs) {
  Process& p = g_process;
  uint64_t pcs[kMaxWalkedFrames];
  const RecordStack stack = plan_record_stack(t, regs, pcs);
  flags |= stack.flags;
  const uint64_t end = stack.end;
  const uint32_t stack_bytes = stack.bytes;
  const RecordKind kind =
      is_realloc_function(event.function) ? RecordKind::kRealloc : RecordKind::kAlloc;
  const uint32_t size = alloc_record_bytes(stack_bytes);
  uint64_t pos = 0;
  if (!p.writer.reserve(size, pos)) return false;
  p.writer.begin_record(pos, size, kind, flags, event_fields(t));

  AllocFields f{};
  f.address = event.address;
  f.size = event.size;
  f.old_address = event.old_address;
  f.alignment = event.alignment;
  f.regs = regs;
  f.stack_end = end;
  f.stack_bytes = stack_bytes;
  f.function = event.function;
  constexpr uint32_t kAfterEvent = sizeof(RecordHeader) + sizeof(EventFields);
  p.writer.write(pos, kAfterEvent, reinterpret_cast<const uint8_t*>(&f) + sizeof(EventFields),
                 sizeof f - sizeof(EventFields));
  constexpr uint32_t kStackAt = sizeof(RecordHeader) + sizeof(AllocFields);
  // The caller's frames: their return addresses, or memory above the capture stub's sp (which
  // this code runs below).
  p.writer.write(pos, kStackAt, stack.source, stack_bytes);
  p.writer.commit(pos);
  return true;
}

bool write_free_record(ThreadState& t, uint64_t address, const CapturedRegs* regs) {
  Process& p = g_process;
  uint16_t flags = p.sample_interval == 0 ? kFlagAllMode : 0;
  uint64_t pcs[kMaxWalkedFrames];
  RecordStack stack;
  uint32_t size = kFreeRecordBytes;
  if (regs != nullptr) {
    stack = plan_record_stack(t, *regs, pcs);
    flags |= kFlagFreeStack | stack.flags;
    size = stacked_free_record_bytes(stack.bytes);
  }
  uint64_t pos = 0;
  if (!p.writer.reserve(size, pos)) return false;
  p.writer.begin_record(pos, size, RecordKind::kFree, flags, event_fields(t));
  p.writer.write(pos, sizeof(RecordHeader) + sizeof(EventFields), &address, sizeof address);
  if (regs != nullptr) {
    StackFields f{};
    f.regs = *regs;
    f.stack_end = stack.end;
    f.stack_bytes = stack.bytes;
    p.writer.write(pos, kFreeRecordBytes, &f, sizeof f);
    p.writer.write(pos, kFreeRecordBytes + sizeof f, stack.source, stack.bytes);
  }
  p.writer.commit(pos);
  ++t.pending_free_records;
  return true;
}

void write_attach_record(ThreadState& t, AttachHow how, uint32_t ppid) {
  Process& p = g_process;
  char exe[kMaxExePathBytes];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe);
  if (n < 0) n = 0;
  const auto exe_bytes = static_cast<uint16_t>(n);
  const uint32_t size = attach_record_bytes(exe_bytes);
  uint64_t pos = 0;
  if (!p.writer.reserve(size, pos)) {
    // Told apart so that sprof does not take a lost attach record for a program that never
    // loaded the interposer.
    __atomic_fetch_add(&p.header->counters.dropped_attaches, 1, __ATOMIC_RELAXED);
    return;
  }
  p.writer.begin_record(pos, size, RecordKind::kAttach, p.attach_flags, event_fields(t));
  AttachFields f{};
  f.ppid = ppid;
  f.how = how;
  f.exe_bytes = exe_bytes;
  constexpr uint32_t kAfterEvent = sizeof(RecordHeader) + sizeof(EventFields);
  p.writer.write(pos, kAfterEvent, reinterpret_cast<const uint8_t*>(&f) + sizeof(EventFields),
                 sizeof f - sizeof(EventFields));
  p.writer.write(pos, sizeof(RecordHeader) + sizeof(AttachFields), exe, exe_bytes);
  // Zero padding, as the format says (the ring holds leftovers of earlier laps).
  const uint32_t pad = align_record(exe_bytes) - exe_bytes;
  const uint64_t zeros = 0;
  p.writer.write(pos, sizeof(RecordHeader) + sizeof(AttachFields) + exe_bytes, &zeros, pad);
  p.writer.commit(pos);
}

}  // namespace sprof::heap::interposer
