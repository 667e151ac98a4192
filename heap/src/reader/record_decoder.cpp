// heap/src/reader/record_decoder.cpp
#include "sprof/heap/record_decoder.hpp"

#include <cstring>
#include <string>

namespace sprof::heap {
namespace {

Unexpected malformed(const std::string& what) {
  return fail(Errc::kMalformed, "heap record: " + what);
}

bool is_user_address(uint64_t a) { return a < kAddressLimit; }

template <typename T>
T read_struct(std::span<const uint8_t> bytes, size_t offset) {
  T out;
  std::memcpy(&out, bytes.data() + offset, sizeof out);
  return out;
}

Result<void> check_event(const EventFields& e) {
  if (e.pid == 0 || e.tid == 0) return malformed("pid or tid is 0");
  return ok();
}

// The size a stack copy claims, before the record's size is checked against it.
Result<void> check_stack_size(uint32_t stack_bytes, const DecodeLimits& limits) {
  if (stack_bytes > limits.max_stack_bytes)
    return malformed("stack copy of " + std::to_string(stack_bytes) + " bytes, limit " +
                     std::to_string(limits.max_stack_bytes));
  return ok();
}

// The registers and stack copy of an allocation or a stacked free.
Result<void> check_stack(const RecordHeader& h, const CapturedRegs& regs, uint64_t stack_end,
                         uint32_t stack_bytes) {
  if (!is_user_address(regs.sp) || !is_user_address(regs.ip))
    return malformed("stack or instruction pointer outside user space");
  if ((h.flags & kFlagWalkedStack) != 0) {
    // Return addresses, not memory at sp: whole words, at least malloc's caller.
    if ((h.flags & (kFlagStackReachedEnd | kFlagNoStack)) != 0)
      return malformed("stack copy flags on a walked stack");
    if (stack_bytes == 0 || stack_bytes % sizeof(uint64_t) != 0)
      return malformed("walked stack of " + std::to_string(stack_bytes) + " bytes");
    return ok();
  }
  const uint64_t copy_end = regs.sp + stack_bytes;  // no overflow: both < 2^57
  if (stack_end != 0 && (stack_end < copy_end || !is_user_address(stack_end)))
    return malformed("stack copy extends past the stack end");
  if ((h.flags & kFlagStackReachedEnd) != 0 && copy_end != stack_end)
    return malformed("stack copy said to reach the stack end does not");
  if ((h.flags & kFlagNoStack) != 0 && stack_bytes != 0)
    return malformed("stack copy on a record without stack");
  return ok();
}

template <typename Event>
Event with_event_fields(const EventFields& e) {
  Event out;
  out.time_ns = e.time_ns;
  out.pid = e.pid;
  out.tid = e.tid;
  return out;
}

Result<HeapEvent> decode_alloc(const RecordHeader& h, std::span<const uint8_t> record,
                               const DecodeLimits& limits) {
  if (record.size() < sizeof(RecordHeader) + sizeof(AllocFields))
    return malformed("allocation record of " + std::to_string(record.size()) + " bytes");
  const auto f = read_struct<AllocFields>(record, sizeof(RecordHeader));
  SPROF_TRY_VOID(check_event(f.event));
  if ((h.flags & kFlagFreeStack) != 0) return malformed("free-stack flag on an allocation");
  SPROF_TRY_VOID(check_stack_size(f.stack_bytes, limits));
  if (record.size() != alloc_record_bytes(f.stack_bytes))
    return malformed("allocation record size " + std::to_string(record.size()) +
                     " does not match a stack copy of " + std::to_string(f.stack_bytes));
  if (static_cast<uint16_t>(f.function) >= static_cast<uint16_t>(AllocFunction::kCount))
    return malformed("unknown allocation function " +
                     std::to_string(static_cast<uint16_t>(f.function)));
  const bool is_realloc = h.kind == RecordKind::kRealloc;
  if (is_realloc != is_realloc_function(f.function))
    return malformed("record kind does not match allocation function");
  if (!is_realloc && f.old_address != 0) return malformed("old address on a non-realloc");
  if (f.address == 0 || !is_user_address(f.address) || !is_user_address(f.old_address))
    return malformed("address outside user space");
  if (!is_user_address(f.size) || !is_user_address(f.alignment))
    return malformed("size or alignment beyond the address space");
  SPROF_TRY_VOID(check_stack(h, f.regs, f.stack_end, f.stack_bytes));

  auto a = with_event_fields<HeapAlloc>(f.event);
  a.address = f.address;
  a.size = f.size;
  a.old_address = f.old_address;
  a.alignment = f.alignment;
  a.function = f.function;
  a.is_realloc = is_realloc;
  a.flags = h.flags;
  a.regs = f.regs;
  a.stack_end = f.stack_end;
  a.stack = record.subspan(sizeof(RecordHeader) + sizeof(AllocFields), f.stack_bytes);
  return HeapEvent{a};
}

// The stack part of a free record with kFlagFreeStack (StackFields, then the stack copy).
Result<void> decode_free_stack(const RecordHeader& h, std::span<const uint8_t> record,
                               const DecodeLimits& limits, HeapFree& out) {
  if (record.size() < kFreeRecordBytes + sizeof(StackFields))
    return malformed("stacked free record of " + std::to_string(record.size()) + " bytes");
  const auto f = read_struct<StackFields>(record, kFreeRecordBytes);
  SPROF_TRY_VOID(check_stack_size(f.stack_bytes, limits));
  if (record.size() != stacked_free_record_bytes(f.stack_bytes))
    return malformed("stacked free record size " + std::to_string(record.size()) +
                     " does not match a stack copy of " + std::to_string(f.stack_bytes));
  SPROF_TRY_VOID(check_stack(h, f.regs, f.stack_end, f.stack_bytes));
  out.regs = f.regs;
  out.stack_end = f.stack_end;
  out.stack = record.subspan(kFreeRecordBytes + sizeof(StackFields), f.stack_bytes);
  return ok();
}

Result<HeapEvent> decode_free(const RecordHeader& h, std::span<const uint8_t> record,
                              const DecodeLimits& limits) {
  const bool stacked = (h.flags & kFlagFreeStack) != 0;
  constexpr uint16_t kStackFlags =
      kFlagFreeStack | kFlagStackReachedEnd | kFlagNoStack | kFlagWalkedStack;
  if ((h.flags & ~(kFlagAllMode | (stacked ? kStackFlags : 0))) != 0)
    return malformed("allocation flags on a free record");
  if (!stacked && record.size() != kFreeRecordBytes)
    return malformed("free record of " + std::to_string(record.size()) + " bytes");
  if (record.size() < kFreeRecordBytes)
    return malformed("free record of " + std::to_string(record.size()) + " bytes");
  const auto f = read_struct<FreeFields>(record, sizeof(RecordHeader));
  SPROF_TRY_VOID(check_event(f.event));
  if (f.address == 0 || !is_user_address(f.address)) return malformed("address outside user space");
  auto freed = with_event_fields<HeapFree>(f.event);
  freed.address = f.address;
  freed.flags = h.flags;
  if (stacked) SPROF_TRY_VOID(decode_free_stack(h, record, limits, freed));
  return HeapEvent{freed};
}

Result<HeapEvent> decode_attach(const RecordHeader& h, std::span<const uint8_t> record) {
  if (record.size() < sizeof(RecordHeader) + sizeof(AttachFields))
    return malformed("attach record of " + std::to_string(record.size()) + " bytes");
  if ((h.flags & ~kKnownAttachFlags) != 0) return malformed("unknown flags on an attach record");
  const auto f = read_struct<AttachFields>(record, sizeof(RecordHeader));
  SPROF_TRY_VOID(check_event(f.event));
  if (f.how != AttachHow::kStart && f.how != AttachHow::kFork && f.how != AttachHow::kRunning)
    return malformed("unknown attach kind " + std::to_string(static_cast<uint16_t>(f.how)));
  if (f.exe_bytes > kMaxExePathBytes || record.size() != attach_record_bytes(f.exe_bytes))
    return malformed("attach record size does not match its path");
  auto a = with_event_fields<HeapAttach>(f.event);
  a.ppid = f.ppid;
  a.how = f.how;
  a.malloc_bypassed = (h.flags & kAttachMallocBypassed) != 0;
  a.foreign_operator_new = (h.flags & kAttachForeignOperatorNew) != 0;
  const auto path = record.subspan(sizeof(RecordHeader) + sizeof(AttachFields), f.exe_bytes);
  a.exe = std::string_view(reinterpret_cast<const char*>(path.data()), path.size());
  return HeapEvent{a};
}

}  // namespace

Result<HeapEvent> decode_record(std::span<const uint8_t> record, const DecodeLimits& limits) {
  if (record.size() < sizeof(RecordHeader)) return malformed("shorter than a record header");
  const auto h = read_struct<RecordHeader>(record, 0);
  if (h.size != record.size())
    return malformed("header size " + std::to_string(h.size) + " but " +
                     std::to_string(record.size()) + " bytes");
  if (h.size % kRecordAlign != 0) return malformed("size not a multiple of 8");
  if ((h.flags & ~kKnownFlags) != 0) return malformed("unknown flags");
  switch (h.kind) {
    case RecordKind::kAlloc:
    case RecordKind::kRealloc: return decode_alloc(h, record, limits);
    case RecordKind::kFree: return decode_free(h, record, limits);
    case RecordKind::kAttach: return decode_attach(h, record);
  }
  return malformed("unknown kind " + std::to_string(static_cast<uint16_t>(h.kind)));
}

}  // namespace sprof::heap
