// Decoded heap-ring events become the converter's records with every field they carry.
#include "heap/heap_records.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace sprof::recorder {
namespace {

TEST_CASE("an allocation event becomes a record with the whole allocation and its own stack copy") {
  std::vector<uint8_t> ring_bytes{1, 2, 3, 4, 5, 6, 7, 8};
  heap::HeapAlloc a;
  a.time_ns = 5'000;
  a.pid = 10;
  a.tid = 11;
  a.address = 0x7000;
  a.size = 48;
  a.old_address = 0x6000;
  a.alignment = 16;
  a.function = heap::AllocFunction::kReallocArray;
  a.is_realloc = true;
  a.flags = heap::kFlagUntracked | heap::kFlagStackReachedEnd;
  a.regs.ip = 0x401000;
  a.regs.sp = 0x7ffc0000;
  a.regs.bp = 0x7ffc0040;
  a.regs.r15 = 15;
  a.stack_end = 0x7ffc0008;
  a.stack = ring_bytes;

  const perf::Record record = heap_record(a);
  ring_bytes.assign(ring_bytes.size(), 0);  // the ring's space is reused after the drain
  const auto* r = std::get_if<perf::HeapAllocRecord>(&record);
  REQUIRE(r != nullptr);
  CHECK(r->id.pid == 10);
  CHECK(r->id.tid == 11);
  CHECK(r->id.time == 5'000);
  CHECK(r->id.cpu == 0);
  CHECK(r->address == 0x7000);
  CHECK(r->size == 48);
  CHECK(r->old_address == 0x6000);
  CHECK(r->alignment == 16);
  CHECK(r->function == heap::AllocFunction::kReallocArray);
  CHECK(r->untracked());
  CHECK(r->stack_reached_end());
  CHECK_FALSE(r->all_mode());
  CHECK(r->regs.ip == 0x401000);
  CHECK(r->regs.sp == 0x7ffc0000);
  CHECK(r->regs.bp == 0x7ffc0040);
  CHECK(r->regs.r15 == 15);
  CHECK(r->stack == std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
}

TEST_CASE("free and attach events become records naming their task and time") {
  heap::HeapFree f;
  f.time_ns = 7;
  f.pid = 20;
  f.tid = 21;
  f.address = 0x9000;
  const perf::Record freed = heap_record(f);
  const auto* fr = std::get_if<perf::HeapFreeRecord>(&freed);
  REQUIRE(fr != nullptr);
  CHECK(fr->id.pid == 20);
  CHECK(fr->id.tid == 21);
  CHECK(fr->id.time == 7);
  CHECK(fr->address == 0x9000);
  CHECK_FALSE(fr->regs.has_value());
  CHECK(fr->stack.empty());

  // Recorded with --heap-free-stacks: the registers and an owned copy of the stack.
  const std::array<uint8_t, 4> stack{9, 8, 7, 6};
  f.flags = heap::kFlagFreeStack;
  f.regs.ip = 0x402000;
  f.regs.sp = 0x7ffd0000;
  f.stack = stack;
  const perf::Record stacked = heap_record(f);
  const auto* sr = std::get_if<perf::HeapFreeRecord>(&stacked);
  REQUIRE(sr != nullptr);
  REQUIRE(sr->regs.has_value());
  CHECK(sr->regs->ip == 0x402000);
  CHECK(sr->regs->sp == 0x7ffd0000);
  CHECK(sr->stack == std::vector<uint8_t>{9, 8, 7, 6});

  heap::HeapAttach at;
  at.time_ns = 9;
  at.pid = 30;
  at.tid = 30;
  at.ppid = 29;
  at.how = heap::AttachHow::kFork;
  const std::string exe = "/bin/app";
  at.exe = exe;
  const perf::Record attached = heap_record(at);
  const auto* ar = std::get_if<perf::HeapAttachRecord>(&attached);
  REQUIRE(ar != nullptr);
  CHECK(ar->id.pid == 30);
  CHECK(ar->id.time == 9);
  CHECK(ar->ppid == 29);
  CHECK(ar->fork);
  CHECK(ar->executable == "/bin/app");
  CHECK_FALSE(ar->malloc_bypassed);
  CHECK_FALSE(ar->foreign_operator_new);

  at.malloc_bypassed = true;
  at.foreign_operator_new = true;
  const perf::Record flagged = heap_record(at);
  CHECK(std::get<perf::HeapAttachRecord>(flagged).malloc_bypassed);
  CHECK(std::get<perf::HeapAttachRecord>(flagged).foreign_operator_new);
}

}  // namespace
}  // namespace sprof::recorder
