// Reads a processed thread's `nativeAllocations` table (docs/firefox-profiler-format.md): the
// balanced form sprof writes, with `memoryAddress` and `threadId`. A thread without the table, or
// with the unbalanced form (no addresses: frees cannot be paired), has no rows for the heap
// report. Lengths and stack indexes are checked like every other table.
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/report/report_profile.hpp"

namespace sprof::report {

Result<std::vector<AllocationRow>> read_native_allocations(simdjson::dom::element thread,
                                                           const std::string& thread_at,
                                                           size_t stacks);

}  // namespace sprof::report
