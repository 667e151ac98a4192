// sprof/report/profile_diff.hpp
//
// Two profiles compared function by function, as `perf diff` compares them (`sprof diff`).
// Functions are matched by module and name, never by address: two builds of one program place
// the same function at different addresses. Counts are normalised by each profile's weight (its
// samples with a stack), so a longer or shorter recording of the same work shows no change: a
// function's share is a percentage of its profile, and a delta is in points of percentage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

// One side of a compared function: weights as function_stats() counts them, 0 when absent.
struct DiffSide {
  uint64_t self = 0;
  uint64_t total = 0;
  double self_percent = 0;
  double total_percent = 0;
};

struct FunctionDelta {
  std::string name;
  std::string module;
  DiffSide base, next;  // `next`: the new profile ("new" is a keyword)

  double total_delta() const { return next.total_percent - base.total_percent; }
  double self_delta() const { return next.self_percent - base.self_percent; }
};

struct ProfileDiff {
  // Every function with samples in either profile, the largest |total delta| first, then the
  // largest |self delta|, then by module and name: the same inputs always give the same order.
  std::vector<FunctionDelta> functions;
  uint64_t base_weight = 0;
  uint64_t next_weight = 0;
  size_t matched = 0;  // functions with samples in both profiles
};

ProfileDiff diff_profiles(const ReportProfile& base, const ThreadSet& base_threads,
                          const ReportProfile& next, const ThreadSet& next_threads);

}  // namespace sprof::report
