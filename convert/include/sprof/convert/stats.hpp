// sprof/convert/stats.hpp
//
// Lossy-but-normal events of a recording. None of them is fatal; all are counted, printed in
// the summary and written to the profile's meta (meta.sprof).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sprof/heap/size_histogram.hpp"

namespace sprof::convert {

inline constexpr size_t kUnwindStopKinds = 8;  // = unwind::kUnwindStopCount

// Bytes still allocated when a process image ended, from one allocation stack.
struct RetainedSite {
  size_t image = 0;               // index into Profile::processes
  size_t thread = 0;              // index into that process's threads
  std::optional<uint32_t> stack;  // in that thread's stack table
  int64_t bytes = 0;              // what the sampled blocks stand for
  uint64_t blocks = 0;            // sampled blocks
};

// Allocation recording (`sprof record --heap`), when on.
struct HeapStats {
  bool enabled = false;
  uint64_t sample_interval_bytes = 0;  // 0: every allocation recorded
  uint32_t stack_copy_bytes = 0;
  // The interposers' totals from the ring's header (every call, sampled or not).
  uint64_t calls = 0;
  uint64_t call_bytes = 0;
  uint64_t attached_processes = 0;
  uint64_t dropped_records = 0;      // records the interposers did not write, for any cause:
  uint64_t dropped_contended = 0;    //   sampled mode gave up on a contended ring
  uint64_t dropped_reader_gone = 0;  //   record-all mode: sprof had stopped reading the ring
                                     //   (the rest: sampled mode found the ring full)
  uint64_t dropped_attaches = 0;     // of the dropped records, attach records
  uint64_t untracked_samples = 0;    // sampled, but their frees cannot be recorded
  uint64_t ring_malformed = 0;       // records the reader rejected
  uint64_t walk_fallbacks = 0;       // records whose in-process walk fell back to a stack copy
  // From the records.
  uint64_t allocations = 0;      // allocation records
  int64_t estimated_bytes = 0;   // bytes they stand for
  uint64_t frees = 0;            // frees of recorded blocks
  uint64_t stacked_frees = 0;    // of them, with the stack they were freed at (--heap-free-stacks)
  uint64_t unmatched_frees = 0;  // frees of blocks not recorded here (inherited at fork, ...)
  // Processes the interposer was loaded into while they ran (-p): their allocations before the
  // attach are unknown (the frees of those blocks are among unmatched_frees).
  uint64_t running_attaches = 0;
  uint64_t lost_frees = 0;      // a block's address was allocated again: its free was lost
  int64_t peak_live_bytes = 0;  // over every process
  double peak_time_ms = 0;
  // heaptrack's and DHAT's analyses of every record, before folding (heap/heap_analysis.hpp):
  // counts of calls, estimated when sampled.
  double temporary = 0;     // freed by their thread before it allocated or freed again
  double freed_blocks = 0;  // blocks whose lifetime is known
  double mean_lifetime_ms = 0;
  double short_lived = 0;  // freed within heap::kShortLivedMs
  heap::SizeHistogram sizes{};
  int64_t live_at_exit_bytes = 0;  // still allocated when their process image ended
  uint64_t live_at_exit_blocks = 0;
  std::vector<RetainedSite> retained;          // by bytes, largest first
  uint64_t programs = 0;                       // program images started by exec while recording
  std::vector<std::string> unhooked_programs;  // of those, the ones that never loaded it
  // Executables that loaded it but whose calls bypass it (docs/heap.md, "Other allocators"):
  // they define malloc themselves (nothing recorded), or link an allocator whose operator new
  // does not call malloc (`new` not recorded).
  std::vector<std::string> malloc_bypassed_programs;
  std::vector<std::string> foreign_operator_new_programs;
  std::array<uint64_t, kUnwindStopKinds> unwind_stops{};  // of allocation stacks sprof unwound
  uint64_t walked_stacks = 0;  // allocation and free stacks walked in the process instead
  // On-CPU samples whose user leaf was in the interposer: the time the allocation hook took.
  // Their stacks start at the program's frame that called malloc.
  uint64_t hook_samples = 0;
  // Long runs (native_allocations.hpp, FoldingOptions): blocks allocated and freed within one
  // bucket of time, folded into one pair of rows per call path from `folding_from_ms` on.
  double folding_from_ms = -1;  // -1: every block has its own rows
  double folding_bucket_ms = 0;
  uint64_t folded_blocks = 0;
  int64_t folded_bytes = 0;
};

struct RecordingStats {
  std::string event_name;        // "cycles" or "cpu-clock"
  uint64_t samples = 0;          // samples written to the profile
  uint64_t off_cpu_samples = 0;  // of which off-CPU (blocked thread, Idle leaf, 0 CPU)
  uint64_t lost_records = 0;     // PERF_RECORD_LOST: records the kernel dropped (ring full)
  uint64_t lost_samples = 0;     // PERF_RECORD_LOST_SAMPLES
  uint64_t throttle_events = 0;  // PERF_RECORD_THROTTLE: the kernel lowered the rate
  // Stretches on CPU longer than a clock timer allows (a VM's stalled CPU, or a timer the host
  // delivered late: cpu_accounting.hpp), and the time left out of the CPU deltas for them.
  uint64_t cpu_stalls = 0;
  uint64_t cpu_stalled_ns = 0;
  uint64_t cpu_stall_credited_ns = 0;  // of those stretches, what the deltas still count
  // Switch-ins of recorded threads, and of those the ones that started at their own record for
  // want of a CPU-wide record of the pick (perf record without -a, a thread not known yet at its
  // pick): each reads late by the switch itself, so the thread's CPU reads low by that much
  // where no scheduler counts correct it (cpu_accounting.hpp).
  uint64_t cpu_switch_ins = 0;
  uint64_t cpu_switch_ins_without_pick = 0;
  // The scheduler's runtime counts (cpu_accounting.hpp), and what they corrected in the deltas
  // the switch records gave: time taken out (credited but not run: stalls, late switch records)
  // and time added (run but not credited: a late timer's time the stall bound left out).
  uint64_t cpu_counts = 0;
  uint64_t cpu_count_removed_ns = 0;
  uint64_t cpu_count_added_ns = 0;
  uint64_t malformed_records = 0;  // records that failed to parse (skipped)
  uint64_t unknown_records = 0;    // record types sprof does not use (skipped)
  uint64_t processes = 0;          // distinct pids seen
  uint64_t threads = 0;            // distinct tids seen
  uint64_t unreadable_modules = 0;
  // Unwinding (dwarf mode): samples whose user stack stopped for each reason; index is
  // unwind::UnwindStop. kComplete counts stacks that reached the thread's entry.
  std::array<uint64_t, kUnwindStopKinds> unwind_stops{};
  uint64_t unwound_samples = 0;
  // Samples whose walk left at least one frame through its frame pointer, for want of CFI.
  uint64_t frame_pointer_fallback_samples = 0;
  // Samples deeper than the copied stack, completed from the thread's earlier stacks
  // (unwind/stack_stitcher.hpp); they count as reaching the thread entry.
  uint64_t stitched_samples = 0;
  // CPU time of sprof's reading thread while recording: reading the rings, parsing, unwinding
  // and building the profile (thread CPU time, so moments when the target preempts sprof do not
  // count). Unwinding alone is measured by bench/unwind.cpp.
  uint64_t reader_cpu_ns = 0;
  HeapStats heap;
};

// "12 stack-truncated, 3 no-cfi": the samples whose user stack stopped before the thread's
// entry, by reason; empty when every unwound stack was complete.
std::string describe_incomplete_unwinds(const RecordingStats& stats);

}  // namespace sprof::convert
