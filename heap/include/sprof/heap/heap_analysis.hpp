// sprof/heap/heap_analysis.hpp
//
// heaptrack's and DHAT's heap analyses over a stream of allocation and free events, per
// allocation site and in all: calls, temporary allocations, lifetimes and short-lived blocks,
// the global peak (DHAT's t-gmax) and which sites held it, what was still live at the end (the
// leaks) and a histogram of requested sizes. docs/heap.md, "Heap analysis", defines each.
//
// One implementation for both places that see allocations: the converter feeds it every record
// before rows are folded (exact totals for meta.sprof and the summary), and `sprof report --heap`
// feeds it the rows of a profile's native-allocations tables (per call path). Sites are the
// caller's dense ids; blocks are matched by (space, address), a space being whatever holds one
// address space's blocks (the converter: a pid; a report: an allocating thread's table).
//
// Events must come in the order they happened (per space; the peak needs one order for all).
// Pure bookkeeping, no I/O; not thread-safe.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sprof/heap/live_blocks.hpp"
#include "sprof/heap/size_histogram.hpp"

namespace sprof::heap {

// Made-up addresses of folded rows (convert/allocation_bucket.hpp): above any user-space
// address, so never a real block's; a reader of the rows tells them apart by it.
inline constexpr uint64_t kFoldedAddressBase = uint64_t{1} << 63;

// Blocks freed within this many milliseconds of their allocation are short-lived.
inline constexpr double kShortLivedMs = 1.0;

struct AllocationEvent {
  double time_ms = 0;
  uint64_t space = 0;
  int64_t thread = 0;  // the allocating thread
  uint64_t address = 0;
  uint64_t size = 0;  // requested bytes (ignored for a folded row)
  int64_t bytes = 0;  // the bytes it stands for (its size, or the sampling estimate)
  double calls = 1;   // the calls it stands for: 1, or 1/p when sampled (sample_weight.hpp)
  uint32_t site = 0;
  // A folded row (several blocks allocated and freed within one bucket of time, bytes summed,
  // docs/heap.md "Long recordings"): counted in bytes and live memory only, never as a call.
  bool folded = false;
};

struct FreeEvent {
  double time_ms = 0;
  uint64_t space = 0;
  int64_t thread = 0;  // the freeing thread
  uint64_t address = 0;
};

// What one site (or all of them) did. Counts are sums of `AllocationEvent::calls`: exact when
// every call is recorded, estimates when sampled. Folded rows count only in `bytes`, the live
// and peak bytes, and `folded_*`.
struct SiteStats {
  int64_t bytes = 0;  // allocated
  double calls = 0;
  double calls_variance = 0;  // of the `calls` estimate: sum of c^2 - c over sampled blocks
  uint64_t records = 0;       // allocation events (unfolded)
  double temporary = 0;
  double freed = 0;  // blocks freed (their lifetimes are known)
  double lifetime_ms_sum = 0;
  double short_lived = 0;
  int64_t live_bytes = 0;  // now
  int64_t peak_bytes = 0;  // live at the global peak
  int64_t leaked_bytes = 0;
  uint64_t leaked_blocks = 0;  // events, folded rows included
  uint64_t folded_rows = 0;
  int64_t folded_bytes = 0;

  double average_lifetime_ms() const { return freed > 0 ? lifetime_ms_sum / freed : 0; }
};

struct HeapTotals {
  SiteStats all;  // every site together; all.peak_bytes is the global peak
  double peak_time_ms = 0;
  SizeHistogram sizes{};
  uint64_t unmatched_frees = 0;  // frees of blocks never seen
};

class HeapAnalysis {
 public:
  void allocate(const AllocationEvent& e);
  void free(const FreeEvent& e);
  // The space's address space ends (a process exits or execs): its live blocks are leaks.
  void end_space(uint64_t space);
  // Ends every space; call once, after the last event.
  void finish();

  const HeapTotals& totals() const { return totals_; }
  const std::vector<SiteStats>& sites() const { return sites_; }  // by site id

 private:
  struct Block {
    double time_ms;
    double calls;
    int64_t bytes;
    uint64_t serial;  // identifies it in `last_allocation_`
    uint32_t site;
    bool folded;
  };

  SiteStats& site(uint32_t id);
  void change_live(uint32_t id, int64_t delta);
  void take_peak_snapshot();
  void leak(const Block& b);

  LiveBlocks<Block> live_;
  // Per thread: the serial of its last allocation while it has neither allocated nor freed
  // since (0: none), for heaptrack's temporary allocations.
  std::unordered_map<int64_t, uint64_t> last_allocation_;
  uint64_t next_serial_ = 1;
  std::vector<SiteStats> sites_;
  HeapTotals totals_;
  // DHAT's t-gmax bookkeeping: a new peak is only copied into `peak_bytes` when the live bytes
  // are about to fall, and only for the sites whose live bytes changed since the last copy, so a
  // program that climbs in small steps costs O(1) per event rather than O(sites).
  bool peak_pending_ = false;
  std::vector<uint32_t> changed_sites_;
  std::vector<bool> site_changed_;
};

}  // namespace sprof::heap
