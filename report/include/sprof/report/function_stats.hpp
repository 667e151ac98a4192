// sprof/report/function_stats.hpp
//
// The hottest functions of a set of threads, as the Firefox Profiler's function list counts
// them: a function's self weight is the weight of samples whose leaf frame it is; its total
// weight is the weight of samples with it anywhere on the stack, counted once per sample however
// often it recurses. Inline frames are functions of their own.
#pragma once

#include <cstdint>
#include <vector>

#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

struct FunctionStat {
  uint32_t function = 0;  // index into ReportProfile::functions
  uint64_t self = 0;
  uint64_t total = 0;
  uint64_t cpu_ns = 0;  // CPU time of the samples in `total`
};

enum class SortKey { kTotal, kSelf };

struct FunctionStats {
  std::vector<FunctionStat> functions;  // those with samples, by `sort` then name
  uint64_t weight = 0;                  // of every sample with a stack: the 100% of percentages
};

FunctionStats function_stats(const ReportProfile& profile, const ThreadSet& threads,
                             SortKey sort = SortKey::kTotal);

inline double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace sprof::report
