// sprof/report/heap_weights.hpp
//
// A profile's allocations as the weights of its stacks, so that the views made for samples (the
// flame graph, folded stacks, pprof) show memory instead: what the Firefox Profiler shows as
// "native allocations" (bytes allocated per call path) and "retained memory" (bytes allocated and
// not freed by the end of the profile), without a browser.
//
// Retained follows the front end: a free pairs with an allocation by address within the table of
// the thread that allocated the block, so a block freed later by that address is not retained.
// Folded rows (docs/heap.md, "Long recordings") keep their bytes and pair like any other.
#pragma once

#include <cstdint>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

enum class HeapWeight { kAllocated, kRetained };

// What the allocations of one stack of a thread add up to.
struct StackMemory {
  uint64_t allocated_bytes = 0, allocated_blocks = 0;
  uint64_t retained_bytes = 0, retained_blocks = 0;
};

struct ThreadMemory {
  std::vector<StackMemory> stacks;  // per stack of the thread
  // Some rows are folded (many blocks each, docs/heap.md "Long recordings"): bytes stay exact,
  // block counts do not.
  bool folded = false;
};

ThreadMemory memory_per_stack(const ReportThread& thread);

// Replaces the samples' weights of every thread of `profile` with bytes per allocation stack, and
// clears their CPU times; `threads` (pointing into it) stay valid. Returns the bytes of the
// selected threads. kInvalidArgument when the selected threads have no allocations (recorded
// without --heap), kNotFound when none of their bytes are retained.
Result<uint64_t> use_heap_weights(ReportProfile& profile, const ThreadSet& threads,
                                  HeapWeight weight);

}  // namespace sprof::report
