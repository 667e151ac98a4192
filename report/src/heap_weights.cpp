#include "sprof/report/heap_weights.hpp"

#include <algorithm>
#include <unordered_map>

#include "sprof/heap/heap_analysis.hpp"

namespace sprof::report {

ThreadMemory memory_per_stack(const ReportThread& thread) {
  ThreadMemory memory;
  memory.stacks.resize(thread.stacks.size());
  std::unordered_map<uint64_t, const AllocationRow*> live;  // address -> its allocation
  for (const AllocationRow& row : thread.allocations) {
    memory.folded = memory.folded || row.address >= heap::kFoldedAddressBase;
    if (!row.is_free()) {
      live[row.address] = &row;
      if (!row.stack) continue;
      StackMemory& m = memory.stacks[*row.stack];
      m.allocated_bytes += static_cast<uint64_t>(row.bytes);
      ++m.allocated_blocks;
    } else {
      live.erase(row.address);
    }
  }
  for (const auto& [address, row] : live) {
    if (!row->stack) continue;
    StackMemory& m = memory.stacks[*row->stack];
    m.retained_bytes += static_cast<uint64_t>(row->bytes);
    ++m.retained_blocks;
  }
  return memory;
}

Result<uint64_t> use_heap_weights(ReportProfile& profile, const ThreadSet& threads,
                                  HeapWeight weight) {
  const bool any_rows = std::any_of(threads.begin(), threads.end(),
                                    [](const ReportThread* t) { return !t->allocations.empty(); });
  if (!any_rows) {
    return fail(Errc::kInvalidArgument,
                "no allocations in the selected threads (record with --heap)");
  }
  uint64_t selected = 0;
  for (ReportThread& thread : profile.threads) {
    const ThreadMemory memory = memory_per_stack(thread);
    thread.stack_weight.assign(thread.stacks.size(), 0);
    for (size_t s = 0; s < thread.stacks.size(); ++s) {
      thread.stack_weight[s] = weight == HeapWeight::kRetained ? memory.stacks[s].retained_bytes
                                                               : memory.stacks[s].allocated_bytes;
    }
    thread.stack_cpu_ns.assign(thread.stacks.size(), 0);
    if (std::find(threads.begin(), threads.end(), &thread) == threads.end()) continue;
    for (const uint64_t b : thread.stack_weight) selected += b;
  }
  if (selected == 0 && weight == HeapWeight::kRetained) {
    return fail(Errc::kNotFound, "every allocated block was freed: nothing is retained");
  }
  return selected;
}

}  // namespace sprof::report
