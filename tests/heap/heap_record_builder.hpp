// tests/heap/heap_record_builder.hpp
//
// Builds heap ring records as bytes, field by field, so decoder tests can start from valid
// records and break one field at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap::test {

struct AllocSpec {
  RecordKind kind = RecordKind::kAlloc;
  uint16_t flags = 0;
  AllocFields fields = default_fields();
  std::vector<uint8_t> stack = std::vector<uint8_t>(64, 0xAB);

  static AllocFields default_fields() {
    AllocFields f{};
    f.event = EventFields{1000, 42, 43};
    f.address = 0x5555'0000'1000;
    f.size = 100;
    f.regs.ip = 0x7f00'0000'1234;
    f.regs.sp = 0x7ffe'0000'0000;
    f.regs.bp = 0x7ffe'0000'0040;
    f.stack_end = 0x7ffe'0000'1000;
    f.function = AllocFunction::kMalloc;
    return f;
  }
};

template <typename T>
void append(std::vector<uint8_t>& out, const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), p, p + sizeof value);
}

inline void pad8(std::vector<uint8_t>& out) {
  while (out.size() % 8 != 0) out.push_back(0);
}

inline std::vector<uint8_t> alloc_record(const AllocSpec& spec, uint64_t position = 0) {
  AllocFields f = spec.fields;
  f.stack_bytes = static_cast<uint32_t>(spec.stack.size());
  std::vector<uint8_t> out;
  append(out, RecordHeader{commit_word(position), alloc_record_bytes(f.stack_bytes), spec.kind,
                           spec.flags});
  append(out, f);
  out.insert(out.end(), spec.stack.begin(), spec.stack.end());
  pad8(out);
  return out;
}

inline std::vector<uint8_t> free_record(uint64_t address, uint32_t tid = 43,
                                        uint64_t position = 0) {
  std::vector<uint8_t> out;
  append(out, RecordHeader{commit_word(position), kFreeRecordBytes, RecordKind::kFree, 0});
  append(out, FreeFields{EventFields{2000, 42, tid}, address});
  return out;
}

// A free recorded with --heap-free-stacks: FreeFields, StackFields, the stack copy.
struct StackedFreeSpec {
  uint64_t address = 0x5555'0000'1000;
  uint16_t flags = kFlagFreeStack;
  StackFields fields = default_fields();
  std::vector<uint8_t> stack = std::vector<uint8_t>(44, 0xCD);  // padded to 48

  static StackFields default_fields() {
    StackFields f{};
    f.regs.ip = 0x7f00'0000'2345;
    f.regs.sp = 0x7ffe'0000'0100;
    f.regs.bx = 0x1234;
    f.stack_end = 0x7ffe'0000'1000;
    return f;
  }
};

inline std::vector<uint8_t> stacked_free_record(const StackedFreeSpec& spec,
                                                uint64_t position = 0) {
  StackFields f = spec.fields;
  f.stack_bytes = static_cast<uint32_t>(spec.stack.size());
  std::vector<uint8_t> out;
  append(out, RecordHeader{commit_word(position), stacked_free_record_bytes(f.stack_bytes),
                           RecordKind::kFree, spec.flags});
  append(out, FreeFields{EventFields{2000, 42, 44}, spec.address});
  append(out, f);
  out.insert(out.end(), spec.stack.begin(), spec.stack.end());
  pad8(out);
  return out;
}

inline std::vector<uint8_t> attach_record(std::string_view exe, AttachHow how = AttachHow::kStart,
                                          uint64_t position = 0) {
  std::vector<uint8_t> out;
  const auto n = static_cast<uint16_t>(exe.size());
  append(out, RecordHeader{commit_word(position), attach_record_bytes(n), RecordKind::kAttach, 0});
  append(out, AttachFields{EventFields{500, 42, 42}, 1, how, n});
  out.insert(out.end(), exe.begin(), exe.end());
  pad8(out);
  return out;
}

// Overwrites a field at a byte offset of a record (offsetof-based, from the format header).
template <typename T>
void poke(std::vector<uint8_t>& record, size_t offset, const T& value) {
  std::memcpy(record.data() + offset, &value, sizeof value);
}

inline constexpr size_t kAllocAt = sizeof(RecordHeader);  // AllocFields start

// A valid configuration for a ring of `data_bytes`.
inline RingConfig ring_config(uint64_t data_bytes, uint32_t stack_copy_bytes = 1024,
                              uint64_t interval = 512 * 1024) {
  return make_ring_config(data_bytes, interval, stack_copy_bytes, 12, 1);
}

}  // namespace sprof::heap::test
