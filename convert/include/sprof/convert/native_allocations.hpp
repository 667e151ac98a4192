// sprof/convert/native_allocations.hpp
//
// What the converter makes of the allocation records of `sprof record --heap` (HeapAllocRecord,
// HeapFreeRecord, HeapAttachRecord in perf/records.hpp), once their stacks are unwound and
// interned (profile_converter_heap.cpp):
//   - each sampled allocation becomes a row of its thread's native-allocations table, weighted
//     with the bytes it stands for (heap/sample_weight.hpp: its size in record-all mode);
//   - its free becomes a row of the *same* table with the negative weight, because the Firefox
//     Profiler pairs frees with allocations by address within one table only; `thread_id` says
//     which thread freed it;
//   - every process image gets a "Memory" counter of its live bytes (the memory track);
//   - totals for the summary and the meta: heaptrack's and DHAT's analyses of every record
//     before any row is folded (heap/heap_analysis.hpp: calls, temporary and short-lived blocks,
//     lifetimes, sizes, the peak of live bytes and when), what was still live when
//     each image ended (by allocation stack: the leaks), which exec'd programs never loaded the
//     interposer (static, setuid, a cleared environment).
//
// Blocks are known per process: a fork child starts with none (what it inherited is its
// parent's; freeing it is an unmatched free), an exec or an exit ends the image and whatever it
// still held is retained. They are kept per process, so that ending an image costs the blocks
// that image held and nothing else: the records come from the profiled program, and a program
// with many live blocks that forks or execs many times (or a ring forged to look like one) must
// not make each end a walk over every live block. An allocation at an address that is still live
// means its free was lost (dropped when the ring was full): a free row is added for the old block
// first, so the front end's pairing stays right.
//
// Long record-everything runs: after `FoldingOptions::exact_rows` rows, blocks allocated and
// freed within one bucket of time on one call path are folded into one pair of rows
// (allocation_bucket.hpp), so the tables, and the profile, grow with the call paths and the
// blocks that outlive a bucket rather than with every allocation. The stats say from when and
// how many.
//
// Pure bookkeeping: no unwinding, no system calls. One instance per converter.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sprof/convert/allocation_bucket.hpp"
#include "sprof/convert/stats.hpp"
#include "sprof/heap/heap_analysis.hpp"
#include "sprof/heap/live_blocks.hpp"
#include "sprof/perf/records.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::convert {

// When rows start to be folded, and over what stretch of time.
struct FoldingOptions {
  // Rows written one per event before folding starts: ~1 M rows make a ~0.5 GB Gecko profile.
  uint64_t exact_rows = uint64_t{1} << 20;
  // Short enough that the memory track and range selections stay fine-grained; long enough that
  // most short-lived blocks (a request's, a loop iteration's) begin and end inside one.
  double bucket_ms = 100;
};

class NativeAllocations {
 public:
  // `sample_interval_bytes` as the interposer was configured; 0: every allocation is recorded.
  // The counts go into `stats` (the converter's), which must outlive this.
  NativeAllocations(uint64_t sample_interval_bytes, HeapStats& stats, FoldingOptions folding = {});

  // The bytes an allocation of `size` bytes stands for.
  int64_t weight(uint64_t size) const;

  // A recorded allocation of process `pid`, whose stack was interned in `owner`'s thread.
  void allocate(profile::Profile& profile, AllocationOwner owner, const perf::HeapAllocRecord& r,
                std::optional<uint32_t> stack, double time_ms);
  // A recorded free of process `r.id.pid`; `stack` is where it was freed, when recorded
  // (--heap-free-stacks): the free's row gets it.
  void free(profile::Profile& profile, const perf::HeapFreeRecord& r, double time_ms,
            std::optional<uint32_t> stack = std::nullopt);
  // The thread table of live block `address` of process `pid`: where its free's row goes.
  std::optional<AllocationOwner> owner_of(uint32_t pid, uint64_t address) const;
  // The current image of `pid` ends (exit, or an exec replacing it): what it still holds is
  // retained.
  void end_image(uint32_t pid, double time_ms);

  // A program image started by exec (it should load the interposer), and a process that did.
  void note_exec(uint32_t pid, size_t image, const std::string& name);
  void note_attach(const perf::HeapAttachRecord& r);

  // Ends every image still running, writes the pending counter samples and completes the
  // stats (retained sites, programs without the interposer).
  void finish(profile::Profile& profile, double end_ms);

  // Blocks looked at while ending images (end_image, finish): the work an exit or exec costs,
  // which must stay proportional to what the ending image held (tests check it).
  uint64_t blocks_visited_at_image_end() const { return blocks_visited_at_image_end_; }

 private:
  struct Block {
    AllocationOwner owner;
    std::optional<uint32_t> stack;
    int64_t bytes = 0;
    uint64_t held_in_bucket = 0;  // the bucket holding its allocation row (0: written)
    uint32_t held_index = 0;
  };
  // One image's memory counter: changes gathered into one sample per kCounterBucketMs.
  struct CounterState {
    size_t counter = 0;  // index into the image's counters
    double pending_start_ms = 0;
    double pending_time_ms = 0;
    int64_t pending_count = 0;
    int64_t pending_number = 0;
  };

  void release(profile::Profile& profile, uint64_t address, const Block& block, int64_t tid,
               std::optional<uint32_t> free_stack, double time_ms);
  // Writes a row now, or holds it in the open bucket and returns its index there.
  std::optional<uint32_t> add_row(profile::Profile& profile, AllocationOwner owner,
                                  const profile::NativeAllocation& row);
  // Before a record at `time_ms`: writes the bucket it no longer belongs to, and opens one once
  // the exact rows are used up.
  void advance_bucket(profile::Profile& profile, double time_ms);
  void flush_bucket(profile::Profile& profile);
  void retain(const Block& block);
  void change_live(profile::Profile& profile, size_t image, int64_t delta, double time_ms);
  void complete_analysis();
  void flush_counter(profile::Profile& profile, size_t image, CounterState& c);

  uint64_t sample_interval_bytes_;
  FoldingOptions folding_;
  uint64_t rows_written_ = 0;
  AllocationBucket bucket_;
  uint64_t bucket_serial_ = 0;               // of the open bucket (0: none yet)
  heap::LiveBlocks<Block> live_;             // by pid and address
  std::map<size_t, CounterState> counters_;  // by image
  // Sees every record as it comes, before folding; one site: the summary needs only totals.
  heap::HeapAnalysis analysis_;
  // Retained bytes by allocation site: (image, thread, stack + 1 or 0) -> site.
  std::map<std::tuple<size_t, size_t, uint32_t>, RetainedSite> retained_;
  std::map<uint32_t, std::pair<size_t, std::string>> exec_images_;  // pid -> its current image
  std::map<size_t, std::string> unhooked_;                          // exec'd images, not attached
  // Executables whose attach record said calls bypass the interposer (HeapStats).
  std::set<std::string> malloc_bypassed_;
  std::set<std::string> foreign_operator_new_;
  HeapStats& stats_;
  uint64_t blocks_visited_at_image_end_ = 0;
};

}  // namespace sprof::convert
