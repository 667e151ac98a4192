// sprof/perf/records.hpp
//
// Typed perf records, decoded from the ring buffer by `parse_record` (record_parser.hpp)
// according to the `SampleLayout` of the event that produced them. Field names mirror
// <linux/perf_event.h> so they grep against the uapi header.
//
// Every record carries `SampleId` (tid, time, cpu) — for non-sample records it comes from the
// sample_id_all trailer — so the merger can order all records by time.
//
// Records own their variable-length data (callchain, stack copy) because they outlive the ring
// buffer space they were copied from; only a source whose bytes outlive every record may let the
// stack copy borrow them (StackBytes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sprof/core/build_id.hpp"
#include "sprof/heap/allocation.hpp"
#include "sprof/perf/stack_bytes.hpp"

namespace sprof::perf {

struct SampleId {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time = 0;  // ns, CLOCK_MONOTONIC (use_clockid)
  uint32_t cpu = 0;
};

// PERF_RECORD_SAMPLE. Optional parts are empty when the layout lacks them.
struct SampleRecord {
  SampleId id;
  uint64_t ip = 0;
  uint64_t period = 0;
  bool kernel_mode = false;         // PERF_RECORD_MISC_KERNEL in header.misc
  std::vector<uint64_t> callchain;  // raw, including PERF_CONTEXT_* markers
  // PERF_SAMPLE_REGS_USER: `regs_user_abi` is PERF_SAMPLE_REGS_ABI_*; `regs_user` holds one value
  // per bit set in `sample_regs_user` (the event's attr.sample_regs_user, copied from its
  // layout), in bit order. Empty when abi is NONE (kernel thread).
  uint64_t regs_user_abi = 0;
  std::vector<uint64_t> regs_user;
  uint64_t sample_regs_user = 0;
  // PERF_SAMPLE_STACK_USER: the copied bytes, already trimmed to dyn_size (owned, or borrowed
  // from bytes that outlive the record: stack_bytes.hpp).
  StackBytes stack_user;
  // PERF_SAMPLE_IDENTIFIER (or PERF_SAMPLE_ID): the id of the event that took the sample; for an
  // inherited event the kernel reports its parent's id (primary_event_id). 0 when absent.
  uint64_t event_id = 0;
  // PERF_SAMPLE_READ without PERF_FORMAT_GROUP: the event's count when the sample was taken (for
  // an inherited per-CPU event, this thread's count on this CPU). nullopt when absent.
  std::optional<uint64_t> read_value;
  // Set from the role of the event that wrote it (RecordStream, not the parser): the sample comes
  // from a context-switch event, i.e. it was taken as this thread was switched out (off-CPU).
  bool context_switch_sample = false;
};

// A sample of the scheduler's runtime count (EventRole::kRuntime, turned into this record by
// RecordStream): `runtime_ns` of CPU time counted for `id.tid` on `id.cpu` since the count began,
// as of `id.time`, taken in the thread's own context (cpu_accounting.hpp).
struct RuntimeRecord {
  SampleId id;
  uint64_t runtime_ns = 0;
};

// PERF_RECORD_MMAP2 (also used for PERF_RECORD_MMAP, with the missing fields zero).
struct Mmap2Record {
  SampleId id;
  uint32_t pid = 0, tid = 0;
  uint64_t addr = 0, len = 0, pgoff = 0;
  uint32_t maj = 0, min = 0;
  uint64_t ino = 0;
  uint64_t ino_generation = 0;
  // PERF_RECORD_MISC_MMAP_BUILD_ID: the kernel put the file's build-id where maj/min/ino/
  // ino_generation would be (those stay zero). Empty otherwise.
  BuildId build_id;
  uint32_t prot = 0, flags = 0;
  bool executable = false;  // PROT_EXEC (or !PERF_RECORD_MISC_MMAP_DATA for old MMAP)
  std::string filename;
};

// PERF_RECORD_COMM. `exec` is PERF_RECORD_MISC_COMM_EXEC: the comm changed because of exec.
struct CommRecord {
  SampleId id;
  uint32_t pid = 0, tid = 0;
  bool exec = false;
  std::string comm;
};

// PERF_RECORD_FORK / PERF_RECORD_EXIT share a layout. For a new thread pid == ppid.
struct ForkRecord {
  SampleId id;
  uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  uint64_t time = 0;
};
struct ExitRecord {
  SampleId id;
  uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  uint64_t time = 0;
};

// PERF_RECORD_LOST: the kernel dropped `lost` records because the ring was full.
struct LostRecord {
  SampleId id;
  uint64_t lost = 0;
};
// PERF_RECORD_LOST_SAMPLES (e.g. AUX or BPF-side drops).
struct LostSamplesRecord {
  SampleId id;
  uint64_t lost = 0;
};

// PERF_RECORD_THROTTLE / UNTHROTTLE.
struct ThrottleRecord {
  SampleId id;
  uint64_t time = 0;
  bool throttled = true;  // false for UNTHROTTLE
};

// PERF_RECORD_SWITCH / SWITCH_CPU_WIDE. `out` is PERF_RECORD_MISC_SWITCH_OUT;
// `preempted` is PERF_RECORD_MISC_SWITCH_OUT_PREEMPT (still runnable). For the CPU-wide form
// (`cpu_wide`) `next_prev_pid/tid` name the other task: the next one for an out record.
struct SwitchRecord {
  SampleId id;
  bool out = false;
  bool preempted = false;
  bool cpu_wide = false;
  uint32_t next_prev_pid = 0, next_prev_tid = 0;
};

// Records of sprof's allocation ring (heap/, docs/heap.md), written by libsprof-heap.so inside
// the profiled processes. They are not perf's, but they share its clock (CLOCK_MONOTONIC), so
// they travel in the same stream and one merge orders them with the perf records that describe
// their processes (forks, execs, mappings). `id.cpu` is 0: the ring does not record it.
//
// An allocation (heap::Allocation: malloc & co, or the new block of a realloc, with the registers
// at the interposer's capture stub) and the stack copied from there, for unwinding. A realloc's
// free of `old_address` is a HeapFreeRecord before it.
struct HeapAllocRecord : heap::Allocation {
  SampleId id;
  // Memory at [regs.sp, regs.sp + stack.size()), or return addresses (walked_stack()).
  std::vector<uint8_t> stack;
};

// A block that was recorded as allocated is handed back (recorded before glibc has it). With
// `--heap-free-stacks`, the registers at the free's capture stub and the stack copied from there,
// to unwind like an allocation's; without, no `regs` and no stack.
struct HeapFreeRecord {
  SampleId id;
  uint64_t address = 0;
  std::optional<heap::CapturedRegs> regs;
  std::vector<uint8_t> stack;  // memory at [regs->sp, regs->sp + stack.size())
  bool walked_stack = false;   // `stack` holds return addresses instead (kFlagWalkedStack)
};

// A process began writing to the ring: an exec'd program image that loaded the interposer
// (`fork` false) or a fork child of one (`fork` true).
struct HeapAttachRecord {
  SampleId id;
  uint32_t ppid = 0;
  bool fork = false;
  // Calls the interposer cannot see (heap_ring_format.hpp, kAttachMallocBypassed, ...).
  bool malloc_bypassed = false;
  bool foreign_operator_new = false;
  // Loaded into a program already running (`sprof record --heap -p`): what it allocated before
  // is unknown, and frees of those blocks are not matched to anything.
  bool running = false;
  std::string executable;
};

using Record = std::variant<SampleRecord, Mmap2Record, CommRecord, ForkRecord, ExitRecord,
                            LostRecord, LostSamplesRecord, ThrottleRecord, SwitchRecord,
                            RuntimeRecord, HeapAllocRecord, HeapFreeRecord, HeapAttachRecord>;

// The sample_id of a record: the task it names, and the time it sorts by.
inline const SampleId& record_id(const Record& r) {
  return std::visit([](const auto& rec) -> const SampleId& { return rec.id; }, r);
}
inline uint64_t record_time(const Record& r) { return record_id(r).time; }

}  // namespace sprof::perf
