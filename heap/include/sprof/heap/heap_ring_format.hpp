// sprof/heap/heap_ring_format.hpp
//
// The byte format of the heap ring: a shared-memory area that sprof creates and that
// libsprof-heap.so (the malloc interposer, loaded into the profiled program with LD_PRELOAD)
// writes allocation records into. This header is the single definition of that format; the
// writer (heap/src/interposer) and the reader (sprof::heap_reader) both include it, so it holds
// plain structs and constants only: no functions that allocate, no dependency beyond <cstdint>.
//
// Layout of the shared area (docs/heap.md tells the whole story):
//
//   [0, kRingHeaderBytes)                 RingHeader: configuration, head/tail, totals
//   [kRingHeaderBytes, + data_bytes)      data area; records at ring positions, offset =
//                                         position & (data_bytes - 1)
//
// Positions grow forever (u64). A writer reserves [head, head + size) with a compare-and-swap on
// `write_head` (only when `head + size - read_tail <= data_bytes`, else it drops the record and
// counts it), writes the record, and publishes it last by storing `commit_word(position)` into
// the record's first word with release order. The single reader consumes in position order and
// hands space back by storing `read_tail` with release order. Records are 8-byte aligned and
// may wrap the end of the data area; their first word never does.
//
// Every field a target process writes is untrusted input for the reader: a program can scribble
// over this memory, and a writer can die between reserving and committing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sprof::heap {

// "SPRFHEAP" little-endian. The version changes with any layout change; both sides refuse a
// header whose magic or version they do not know.
inline constexpr uint64_t kRingMagic = 0x5041454846525053ULL;
// 4: RingConfig::options; free records may carry a stack (kFlagFreeStack).
// 5: AttachHow::kRunning.
// 6: kFlagWalkedStack: a stack walked in the process instead of copied; kOptionCopyStacks;
//    RingCounters::walk_fallbacks.
inline constexpr uint32_t kRingVersion = 6;
inline constexpr uint32_t kRingHeaderBytes = 4096;

// Bounds both sides enforce on the configuration.
inline constexpr uint64_t kMinDataBytes = 64ULL * 1024;
inline constexpr uint64_t kMaxDataBytes = 1ULL << 34;  // 16 GiB
inline constexpr uint32_t kMaxStackCopyBytes = 256 * 1024;
inline constexpr uint32_t kMinTrackedCapacityLog2 = 10;
inline constexpr uint32_t kMaxTrackedCapacityLog2 = 24;
inline constexpr uint32_t kMaxExePathBytes = 1024;

// Environment variable naming the ring for the interposer: a path the program can open
// read-write, normally "/proc/<sprof pid>/fd/<memfd>" (see docs/heap.md, "Handshake").
inline constexpr const char* kRingEnvVar = "SPROF_HEAP_RING";

// Written once by the creator (sprof) before any program starts; read-only for interposers.
struct RingConfig {
  uint64_t magic;
  uint32_t version;
  uint32_t header_bytes;           // == kRingHeaderBytes: the data area starts here
  uint64_t data_bytes;             // power of two in [kMinDataBytes, kMaxDataBytes]
  uint64_t sample_interval_bytes;  // mean bytes between sampled allocations; 0 = record all
  uint32_t stack_copy_bytes;       // most stack bytes copied per allocation; multiple of 8
  uint32_t tracked_capacity_log2;  // slots in each process's set of sampled live addresses
  uint64_t creator_pid;
  uint64_t options;  // kOption* bits
  uint64_t reserved[1];
};
static_assert(sizeof(RingConfig) == 64);

// RingConfig::options bits.
// Copy registers and stack at each recorded free, as at an allocation (`--heap-free-stacks`):
// free records then carry kFlagFreeStack.
inline constexpr uint64_t kOptionFreeStacks = 1;
// Never walk stacks in the process: every record copies its stack for sprof to unwind
// (`--heap-stacks=copy`; docs/heap.md, "The in-process stack walk").
inline constexpr uint64_t kOptionCopyStacks = 2;
inline constexpr uint64_t kKnownOptions = 3;

// Totals the interposers add to (atomically, shared by every attached process). The counts of
// calls, samples and free records are gathered per thread and added in batches (every 32
// records or 2^20 calls, at thread exit, at process exit), so a thread that is killed or calls
// exec loses at most one batch; read them after the program has exited.
struct RingCounters {
  uint64_t attached_processes;   // processes (or fork children) that mapped the ring
  uint64_t allocations;          // allocation calls that succeeded (sampled or not)
  uint64_t allocated_bytes;      // bytes those calls asked for (a failed call counts nothing)
  uint64_t sampled_allocations;  // allocation records written (or dropped: see below)
  uint64_t sampled_bytes;        // bytes requested by the sampled calls
  uint64_t free_records;         // free records written
  uint64_t dropped_records;      // records not written, for any of the causes below
  uint64_t dropped_bytes;        // their size
  uint64_t untracked_samples;    // sampled, but the address set was full: no free will follow
  uint64_t reentrant_calls;      // calls passed through because the thread was inside the hook
  uint64_t stack_lookups;        // /proc/self/maps reads to find the bounds of a stack
  uint64_t stack_copy_failures;  // allocations recorded without a stack copy
  // Why records were dropped: the rest of `dropped_records` found the ring full in sampled mode
  // (which never makes the program wait).
  uint64_t dropped_contended;    // sampled mode: the CAS on write_head kept failing
  uint64_t dropped_reader_gone;  // record-all mode: sprof had closed the ring or exited
  uint64_t dropped_attaches;     // of all dropped records, attach records
  // Records whose in-process stack walk did not reach the outermost frame, so that they carry
  // a stack copy instead (docs/heap.md, "The in-process stack walk").
  uint64_t walk_fallbacks;
};
static_assert(sizeof(RingCounters) == 128);

struct RingHeader {
  RingConfig config;                   // offset 0
  alignas(64) uint64_t write_head;     // offset 64: writers CAS it
  alignas(64) uint64_t read_tail;      // offset 128: the reader stores it
  alignas(64) RingCounters counters;   // offset 192
  alignas(64) uint64_t reader_closed;  // offset 320: the reader stores 1 when it reads no more
  uint8_t reserved[kRingHeaderBytes - 384];
};
static_assert(sizeof(RingHeader) == kRingHeaderBytes);
static_assert(offsetof(RingHeader, write_head) == 64);
static_assert(offsetof(RingHeader, read_tail) == 128);
static_assert(offsetof(RingHeader, counters) == 192);
static_assert(offsetof(RingHeader, reader_closed) == 320);

// --- Records --------------------------------------------------------------------------------

// Key mixed into a record's first word. Zeroed or stale memory never equals
// `position ^ kCommitKey` by accident, so a reader can tell a published record from leftovers
// of an earlier lap (whose word holds an older position) and from never-written memory.
inline constexpr uint64_t kCommitKey = 0x9E3779B97F4A7C15ULL;
inline constexpr uint64_t commit_word(uint64_t position) { return position ^ kCommitKey; }

enum class RecordKind : uint16_t {
  kAlloc = 1,    // AllocFields + stack bytes
  kFree = 2,     // FreeFields (+ StackFields + stack bytes with kFlagFreeStack)
  kRealloc = 3,  // AllocFields + stack bytes; `old_address` was given to realloc
  kAttach = 4,   // AttachFields + executable path bytes
};

// RecordHeader::flags bits.
inline constexpr uint16_t kFlagStackReachedEnd = 1;  // the copy ends at the stack's end
inline constexpr uint16_t kFlagNoStack = 2;          // no stack could be copied
inline constexpr uint16_t kFlagUntracked = 4;        // sampled but not tracked: no free follows
inline constexpr uint16_t kFlagAllMode = 8;          // written in record-every-call mode
inline constexpr uint16_t kFlagFreeStack = 16;       // a free record with StackFields + stack
// The stack bytes are not a copy but the return addresses of a whole stack, walked in the
// process (little-endian words, malloc's caller first, the outermost frame last).
inline constexpr uint16_t kFlagWalkedStack = 32;
inline constexpr uint16_t kKnownFlags = 63;

struct RecordHeader {
  uint64_t commit;  // commit_word(position) once published; stored last, with release order
  uint32_t size;    // whole record in bytes, header included; multiple of 8
  RecordKind kind;
  uint16_t flags;
};
static_assert(sizeof(RecordHeader) == 16);

// Written right after the reservation (before the rest of the record), so a reader facing a
// record that never gets committed can tell which thread reserved it.
struct EventFields {
  uint64_t time_ns;  // CLOCK_MONOTONIC
  uint32_t pid;
  uint32_t tid;
};
static_assert(sizeof(EventFields) == 16);

// User registers for CFI unwinding (x86-64), as they are at the first instruction of the
// interposer's capture stub: `ip` is that instruction, `sp` points at the stub's return address
// (the allocation's caller, or the public malloc entry point if it did not tail-call), and the
// callee-saved registers hold the caller's values. perf_regs numbering: bx=1, bp=6, sp=7, ip=8,
// r12..r15=20..23.
struct CapturedRegs {
  uint64_t ip;
  uint64_t sp;
  uint64_t bp;
  uint64_t bx;
  uint64_t r12;
  uint64_t r13;
  uint64_t r14;
  uint64_t r15;
};
static_assert(sizeof(CapturedRegs) == 64);

// Which API made the allocation (display only; `kind` carries the semantics).
enum class AllocFunction : uint16_t {
  kMalloc = 0,
  kCalloc,
  kRealloc,
  kReallocArray,
  kPosixMemalign,
  kAlignedAlloc,
  kMemalign,
  kValloc,
  kPvalloc,
  // mimalloc's own API (docs/heap.md, "Other allocators").
  kMiMalloc,
  kMiCalloc,
  kMiZalloc,
  kMiRealloc,
  kMiMallocAligned,
  kMiZallocAligned,
  kCount
};

// The functions whose records are kRealloc: they were given a block to resize.
inline constexpr bool is_realloc_function(AllocFunction f) {
  return f == AllocFunction::kRealloc || f == AllocFunction::kReallocArray ||
         f == AllocFunction::kMiRealloc;
}

// Followed by `stack_bytes` bytes: the memory at [regs.sp, regs.sp + stack_bytes), then zero
// padding to a multiple of 8; with kFlagWalkedStack, stack_bytes / 8 return addresses instead.
struct AllocFields {
  EventFields event;
  uint64_t address;      // returned block (never 0: failed allocations are not recorded)
  uint64_t size;         // bytes requested
  uint64_t old_address;  // kRealloc: the block passed to realloc (0 for realloc(NULL, n))
  uint64_t alignment;    // requested alignment; 0 when the API takes none
  CapturedRegs regs;
  uint64_t stack_end;  // end of the mapping holding regs.sp (0 when unknown)
  uint32_t stack_bytes;
  AllocFunction function;
  uint16_t reserved;
};
static_assert(sizeof(AllocFields) == 128);

struct FreeFields {
  EventFields event;
  uint64_t address;
};
static_assert(sizeof(FreeFields) == 24);

// What a free record with kFlagFreeStack adds after its FreeFields: the registers at the free's
// capture stub, then `stack_bytes` bytes of stack from regs.sp and zero padding to 8, as in an
// allocation record (kFlagStackReachedEnd and kFlagNoStack mean the same there).
struct StackFields {
  CapturedRegs regs;
  uint64_t stack_end;  // end of the mapping holding regs.sp (0 when unknown)
  uint32_t stack_bytes;
  uint32_t reserved;
};
static_assert(sizeof(StackFields) == 80);

enum class AttachHow : uint16_t {
  kStart = 1,  // a new program image (the launched program or an exec'd descendant)
  kFork = 2,   // a fork child (it inherited the mapping; written by the child)
  // A program that was already running when sprof loaded the interposer into it
  // (`sprof record --heap -p`): its allocations before this record are unknown, and frees of
  // those blocks are not recorded.
  kRunning = 3,
};

// RecordHeader::flags bits of an attach record: allocation calls of the process that the
// interposer cannot see (docs/heap.md, "Other allocators").
// malloc does not resolve to the interposer: the executable (or a library ahead of it) defines
// its own, so none of the process's malloc/free calls are recorded.
inline constexpr uint16_t kAttachMallocBypassed = 1;
// operator new is defined by another malloc replacement (jemalloc, tcmalloc, mimalloc), which
// allocates without calling malloc: blocks from `new` are not recorded.
inline constexpr uint16_t kAttachForeignOperatorNew = 2;
inline constexpr uint16_t kKnownAttachFlags = 3;

// Followed by `exe_bytes` bytes of /proc/self/exe (no NUL), then zero padding to 8.
struct AttachFields {
  EventFields event;
  uint32_t ppid;
  AttachHow how;
  uint16_t exe_bytes;
};
static_assert(sizeof(AttachFields) == 24);

inline constexpr uint32_t kRecordAlign = 8;
inline constexpr uint32_t align_record(uint32_t n) {
  return (n + kRecordAlign - 1) & ~(kRecordAlign - 1);
}
inline constexpr uint32_t kFreeRecordBytes = sizeof(RecordHeader) + sizeof(FreeFields);
inline constexpr uint32_t alloc_record_bytes(uint32_t stack_bytes) {
  return static_cast<uint32_t>(sizeof(RecordHeader) + sizeof(AllocFields)) +
         align_record(stack_bytes);
}
inline constexpr uint32_t stacked_free_record_bytes(uint32_t stack_bytes) {
  return kFreeRecordBytes + static_cast<uint32_t>(sizeof(StackFields)) + align_record(stack_bytes);
}
inline constexpr uint32_t attach_record_bytes(uint32_t exe_bytes) {
  return static_cast<uint32_t>(sizeof(RecordHeader) + sizeof(AttachFields)) +
         align_record(exe_bytes);
}
// No valid record is larger than this; a reader rejects bigger sizes without looking further.
inline constexpr uint32_t kMaxRecordBytes = alloc_record_bytes(kMaxStackCopyBytes);
static_assert(stacked_free_record_bytes(kMaxStackCopyBytes) <= kMaxRecordBytes);

// A configuration of the current version with the given parameters (check it with
// ring_config_problem).
inline constexpr RingConfig make_ring_config(uint64_t data_bytes, uint64_t sample_interval_bytes,
                                             uint32_t stack_copy_bytes,
                                             uint32_t tracked_capacity_log2, uint64_t creator_pid,
                                             uint64_t options = 0) {
  RingConfig c{};
  c.magic = kRingMagic;
  c.version = kRingVersion;
  c.header_bytes = kRingHeaderBytes;
  c.data_bytes = data_bytes;
  c.sample_interval_bytes = sample_interval_bytes;
  c.stack_copy_bytes = stack_copy_bytes;
  c.tracked_capacity_log2 = tracked_capacity_log2;
  c.creator_pid = creator_pid;
  c.options = options;
  return c;
}

// Checks a configuration both sides can rely on. Returns nullptr when it is usable, otherwise
// a static description of the first problem (no allocation: the interposer calls this too).
// `area_bytes` is the size of the whole shared area.
inline constexpr const char* ring_config_problem(const RingConfig& c, uint64_t area_bytes) {
  if (c.magic != kRingMagic) return "bad magic";
  if (c.version != kRingVersion) return "unknown version";
  if (c.header_bytes != kRingHeaderBytes) return "bad header size";
  if ((c.options & ~kKnownOptions) != 0) return "unknown options";
  if (c.data_bytes < kMinDataBytes || c.data_bytes > kMaxDataBytes) return "data size out of range";
  if ((c.data_bytes & (c.data_bytes - 1)) != 0) return "data size not a power of two";
  if (area_bytes < c.header_bytes || area_bytes - c.header_bytes < c.data_bytes)
    return "area smaller than header + data";
  if (c.stack_copy_bytes > kMaxStackCopyBytes || c.stack_copy_bytes % 8 != 0)
    return "stack copy size out of range";
  // Room for at least four of the largest allocation records.
  if (c.data_bytes / 4 < alloc_record_bytes(c.stack_copy_bytes))
    return "data size too small for the stack copy size";
  if (c.tracked_capacity_log2 < kMinTrackedCapacityLog2 ||
      c.tracked_capacity_log2 > kMaxTrackedCapacityLog2)
    return "tracked capacity out of range";
  return nullptr;
}

}  // namespace sprof::heap
