// Decoding heap ring records from bytes: valid records of each kind, every truncation, and
// hostile values in each field (the profiled program can write anything into the ring).
#include "sprof/heap/record_decoder.hpp"

#include <doctest/doctest.h>

#include <cstddef>

#include "heap_record_builder.hpp"

using namespace sprof::heap;
using namespace sprof::heap::test;

namespace {

const DecodeLimits kLimits{1024};

sprof::Result<HeapEvent> decode(const std::vector<uint8_t>& bytes) {
  return decode_record(bytes, kLimits);
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  auto r = decode(bytes);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == sprof::Errc::kMalformed);
  return r.error().message;
}

size_t alloc_field(size_t offset_in_fields) { return kAllocAt + offset_in_fields; }

}  // namespace

TEST_CASE("an allocation record decodes to its fields and its stack copy") {
  AllocSpec spec;
  spec.flags = kFlagStackReachedEnd;
  spec.fields.stack_end = spec.fields.regs.sp + 64;
  spec.stack.assign(64, 0);
  spec.stack[0] = 0x11;
  spec.stack[63] = 0x22;
  // Decoded records view the bytes they came from: keep them alive while the record is read.
  const auto bytes = alloc_record(spec);
  auto r = decode(bytes);
  REQUIRE(r.has_value());
  const auto& a = std::get<HeapAlloc>(*r);
  CHECK(a.time_ns == 1000);
  CHECK(a.pid == 42);
  CHECK(a.tid == 43);
  CHECK(a.address == spec.fields.address);
  CHECK(a.size == 100);
  CHECK_FALSE(a.is_realloc);
  CHECK(a.function == AllocFunction::kMalloc);
  CHECK(a.regs.ip == spec.fields.regs.ip);
  CHECK(a.regs.sp == spec.fields.regs.sp);
  CHECK(a.regs.bp == spec.fields.regs.bp);
  CHECK(a.stack_reached_end());
  REQUIRE(a.stack.size() == 64);
  CHECK(a.stack[0] == 0x11);
  CHECK(a.stack[63] == 0x22);
}

TEST_CASE("a realloc record carries the old block and pads an odd-sized stack copy") {
  AllocSpec spec;
  spec.kind = RecordKind::kRealloc;
  spec.fields.function = AllocFunction::kRealloc;
  spec.fields.old_address = 0x5555'0000'2000;
  spec.stack.assign(20, 1);
  const auto bytes = alloc_record(spec);
  CHECK(bytes.size() == alloc_record_bytes(20));
  auto r = decode(bytes);
  REQUIRE(r.has_value());
  const auto& a = std::get<HeapAlloc>(*r);
  CHECK(a.is_realloc);
  CHECK(a.old_address == 0x5555'0000'2000);
  CHECK(a.stack.size() == 20);
}

TEST_CASE("free and attach records decode") {
  const auto free_bytes = free_record(0x1000);
  auto f = decode(free_bytes);
  REQUIRE(f.has_value());
  CHECK(std::get<HeapFree>(*f).address == 0x1000);
  CHECK(std::get<HeapFree>(*f).tid == 43);

  const auto attach_bytes = attach_record("/usr/bin/odd-length", AttachHow::kFork);
  auto a = decode(attach_bytes);
  REQUIRE(a.has_value());
  const auto& at = std::get<HeapAttach>(*a);
  CHECK(at.exe == "/usr/bin/odd-length");
  CHECK(at.how == AttachHow::kFork);
  CHECK(at.ppid == 1);
}

TEST_CASE("a free recorded with its stack decodes to its registers and stack copy") {
  StackedFreeSpec spec;
  const auto bytes = stacked_free_record(spec);
  CHECK(bytes.size() == kFreeRecordBytes + sizeof(StackFields) + 48);
  auto e = decode(bytes);
  REQUIRE(e.has_value());
  const auto& f = std::get<HeapFree>(*e);
  CHECK(f.address == 0x5555'0000'1000);
  CHECK(f.tid == 44);
  REQUIRE(f.has_stack());
  CHECK(f.regs.ip == 0x7f00'0000'2345);
  CHECK(f.regs.sp == 0x7ffe'0000'0100);
  CHECK(f.regs.bx == 0x1234);
  CHECK(f.stack_end == 0x7ffe'0000'1000);
  REQUIRE(f.stack.size() == 44);
  CHECK(f.stack[0] == 0xCD);
  CHECK(f.stack.data() == bytes.data() + kFreeRecordBytes + sizeof(StackFields));

  // Without the flag the same bytes are a free of the wrong size; a plain free has no stack.
  auto unflagged = bytes;
  poke(unflagged, offsetof(RecordHeader, flags), uint16_t{0});
  CHECK(error_of(unflagged).find("free record of") != std::string::npos);
  auto plain = decode(free_record(0x1000));
  REQUIRE(plain.has_value());
  CHECK_FALSE(std::get<HeapFree>(*plain).has_stack());
}

TEST_CASE("a free's stack copy is checked like an allocation's") {
  SUBCASE("every truncation is rejected") {
    const auto bytes = stacked_free_record({});
    for (size_t n = 0; n < bytes.size(); n += 8) {
      auto cut = std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
      if (cut.size() >= sizeof(RecordHeader)) poke(cut, offsetof(RecordHeader, size), uint32_t(n));
      CHECK_FALSE(decode(cut).has_value());
    }
  }
  SUBCASE("stack copy beyond the configured size") {
    StackedFreeSpec spec;
    spec.stack.assign(2048, 0);
    CHECK(error_of(stacked_free_record(spec)).find("limit 1024") != std::string::npos);
  }
  SUBCASE("stack copy past the stack end") {
    StackedFreeSpec spec;
    spec.fields.stack_end = spec.fields.regs.sp + 8;
    CHECK(error_of(stacked_free_record(spec)).find("past the stack end") != std::string::npos);
  }
  SUBCASE("no-stack claimed with a copy") {
    StackedFreeSpec spec;
    spec.flags |= kFlagNoStack;
    CHECK(error_of(stacked_free_record(spec)).find("without stack") != std::string::npos);
  }
  SUBCASE("stack pointer outside user space") {
    StackedFreeSpec spec;
    spec.fields.regs.sp = kAddressLimit;
    error_of(stacked_free_record(spec));
  }
  SUBCASE("stack flags without the free-stack flag") {
    auto record = free_record(0x1000);
    poke(record, offsetof(RecordHeader, flags), kFlagNoStack);
    CHECK(error_of(record).find("allocation flags on a free") != std::string::npos);
  }
  SUBCASE("the free-stack flag on an allocation") {
    AllocSpec spec;
    spec.flags = kFlagFreeStack;
    CHECK(error_of(alloc_record(spec)).find("free-stack flag") != std::string::npos);
  }
}

TEST_CASE("attach flags say which calls bypass the interposer") {
  auto record = attach_record("/usr/bin/own-malloc");
  auto plain = decode(record);
  REQUIRE(plain.has_value());
  CHECK_FALSE(std::get<HeapAttach>(*plain).malloc_bypassed);
  CHECK_FALSE(std::get<HeapAttach>(*plain).foreign_operator_new);

  poke(record, offsetof(RecordHeader, flags), kAttachMallocBypassed);
  auto own = decode(record);
  REQUIRE(own.has_value());
  CHECK(std::get<HeapAttach>(*own).malloc_bypassed);
  CHECK_FALSE(std::get<HeapAttach>(*own).foreign_operator_new);

  poke(record, offsetof(RecordHeader, flags), kAttachForeignOperatorNew);
  auto foreign = decode(record);
  REQUIRE(foreign.has_value());
  CHECK_FALSE(std::get<HeapAttach>(*foreign).malloc_bypassed);
  CHECK(std::get<HeapAttach>(*foreign).foreign_operator_new);
  CHECK(std::get<HeapAttach>(*foreign).exe == "/usr/bin/own-malloc");
}

TEST_CASE("every truncation of a valid record is rejected") {
  for (const auto& record : {alloc_record(AllocSpec{}), free_record(0x1000), attach_record("/x")}) {
    for (size_t n = 0; n < record.size(); ++n) {
      CAPTURE(n);
      const std::vector<uint8_t> cut(record.begin(), record.begin() + static_cast<ptrdiff_t>(n));
      CHECK_FALSE(decode(cut).has_value());
    }
  }
}

TEST_CASE("header fields that cannot be right are rejected") {
  auto record = alloc_record(AllocSpec{});
  SUBCASE("size larger than the bytes") {
    poke(record, offsetof(RecordHeader, size), uint32_t{0xFFFFFFF8});
    CHECK(error_of(record).find("header size") != std::string::npos);
  }
  SUBCASE("unknown kind") {
    poke(record, offsetof(RecordHeader, kind), uint16_t{99});
    CHECK(error_of(record).find("unknown kind") != std::string::npos);
  }
  SUBCASE("unknown flags") {
    poke(record, offsetof(RecordHeader, flags), uint16_t{0x100});
    CHECK(error_of(record).find("flags") != std::string::npos);
  }
}

TEST_CASE("hostile allocation fields are rejected") {
  auto record = alloc_record(AllocSpec{});
  SUBCASE("stack copy above the configured limit") {
    poke(record, alloc_field(offsetof(AllocFields, stack_bytes)), uint32_t{4096});
    CHECK(error_of(record).find("limit") != std::string::npos);
  }
  SUBCASE("stack size that does not match the record size") {
    poke(record, alloc_field(offsetof(AllocFields, stack_bytes)), uint32_t{8});
    CHECK(error_of(record).find("does not match") != std::string::npos);
  }
  SUBCASE("address zero") {
    poke(record, alloc_field(offsetof(AllocFields, address)), uint64_t{0});
    error_of(record);
  }
  SUBCASE("address in kernel space") {
    poke(record, alloc_field(offsetof(AllocFields, address)), uint64_t{0xFFFF'8000'0000'0000});
    error_of(record);
  }
  SUBCASE("size larger than any address space") {
    poke(record, alloc_field(offsetof(AllocFields, size)), ~uint64_t{0});
    error_of(record);
  }
  SUBCASE("stack pointer that would wrap with the copy") {
    poke(record, alloc_field(offsetof(AllocFields, regs) + offsetof(CapturedRegs, sp)),
         ~uint64_t{0} - 8);
    error_of(record);
  }
  SUBCASE("stack end below the end of the copy") {
    poke(record, alloc_field(offsetof(AllocFields, stack_end)), uint64_t{0x7ffe'0000'0010});
    CHECK(error_of(record).find("past the stack end") != std::string::npos);
  }
  SUBCASE("unknown allocation function") {
    poke(record, alloc_field(offsetof(AllocFields, function)), uint16_t{200});
    error_of(record);
  }
  SUBCASE("realloc function on an alloc record") {
    poke(record, alloc_field(offsetof(AllocFields, function)), AllocFunction::kRealloc);
    CHECK(error_of(record).find("kind does not match") != std::string::npos);
  }
  SUBCASE("old address on a plain allocation") {
    poke(record, alloc_field(offsetof(AllocFields, old_address)), uint64_t{0x1000});
    error_of(record);
  }
  SUBCASE("pid zero") {
    poke(record, alloc_field(offsetof(EventFields, pid)), uint32_t{0});
    error_of(record);
  }
}

TEST_CASE("stack flags must agree with the copy") {
  SUBCASE("reached-end claimed but the copy stops short") {
    AllocSpec spec;
    spec.flags = kFlagStackReachedEnd;
    CHECK(error_of(alloc_record(spec)).find("reach the stack end") != std::string::npos);
  }
  SUBCASE("no-stack claimed with a copy") {
    AllocSpec spec;
    spec.flags = kFlagNoStack;
    error_of(alloc_record(spec));
  }
}

TEST_CASE("hostile free and attach fields are rejected") {
  SUBCASE("free of address zero") { error_of(free_record(0)); }
  SUBCASE("free with allocation flags") {
    auto record = free_record(0x1000);
    poke(record, offsetof(RecordHeader, flags), kFlagUntracked);
    error_of(record);
  }
  SUBCASE("attach path longer than the record") {
    auto record = attach_record("/x");
    poke(record, kAllocAt + offsetof(AttachFields, exe_bytes), uint16_t{4000});
    error_of(record);
  }
  SUBCASE("unknown attach flags") {
    auto record = attach_record("/x");
    poke(record, offsetof(RecordHeader, flags), uint16_t{4});
    CHECK(error_of(record).find("flags on an attach record") != std::string::npos);
  }
  SUBCASE("unknown attach kind") {
    auto record = attach_record("/x");
    poke(record, kAllocAt + offsetof(AttachFields, how), uint16_t{7});
    CHECK(error_of(record).find("attach kind") != std::string::npos);
  }
}
