#include "sprof/report/profile_diff.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "sprof/report/function_stats.hpp"

namespace sprof::report {

namespace {

using FunctionKey = std::pair<std::string, std::string>;  // (module, name)

// Adds one profile's functions into `by_key`, on the side `side` points to.
void add_side(std::map<FunctionKey, FunctionDelta>& by_key, const ReportProfile& profile,
              const FunctionStats& stats, DiffSide FunctionDelta::*side) {
  for (const FunctionStat& s : stats.functions) {
    const Function& f = profile.functions[s.function];
    FunctionDelta& delta = by_key[{f.module, f.name}];
    delta.name = f.name;
    delta.module = f.module;
    // Two ids with one (module, name) do not occur in a read profile; adding keeps it exact if
    // they ever did.
    DiffSide& d = delta.*side;
    d.self += s.self;
    d.total += s.total;
    d.self_percent = percent(d.self, stats.weight);
    d.total_percent = percent(d.total, stats.weight);
  }
}

// Products of two sample counts need more than 64 bits.
__extension__ using Wide = __int128;

// A change of share scaled by both weights, exact in integers: new/new_weight - base/base_weight
// times base_weight * new_weight. Ordering by it, not by the percentages, keeps equal changes
// equal (100 - 71.43 and 28.57 - 0 differ in their last bits as doubles).
Wide scaled_change(uint64_t base, uint64_t next, uint64_t base_weight, uint64_t next_weight) {
  const Wide change = static_cast<Wide>(next) * base_weight - static_cast<Wide>(base) * next_weight;
  return change < 0 ? -change : change;
}

}  // namespace

ProfileDiff diff_profiles(const ReportProfile& base, const ThreadSet& base_threads,
                          const ReportProfile& next, const ThreadSet& next_threads) {
  const FunctionStats base_stats = function_stats(base, base_threads);
  const FunctionStats next_stats = function_stats(next, next_threads);
  std::map<FunctionKey, FunctionDelta> by_key;
  add_side(by_key, base, base_stats, &FunctionDelta::base);
  add_side(by_key, next, next_stats, &FunctionDelta::next);

  ProfileDiff diff;
  diff.base_weight = base_stats.weight;
  diff.next_weight = next_stats.weight;
  diff.functions.reserve(by_key.size());
  for (auto& [key, delta] : by_key) {
    if (delta.base.total > 0 && delta.next.total > 0) ++diff.matched;
    diff.functions.push_back(std::move(delta));
  }
  // std::map gave (module, name) order; a stable sort keeps it among equal changes.
  const auto size_of_change = [&](const FunctionDelta& f) {
    return std::tuple(scaled_change(f.base.total, f.next.total, diff.base_weight, diff.next_weight),
                      scaled_change(f.base.self, f.next.self, diff.base_weight, diff.next_weight));
  };
  std::stable_sort(diff.functions.begin(), diff.functions.end(),
                   [&](const FunctionDelta& a, const FunctionDelta& b) {
                     return size_of_change(a) > size_of_change(b);
                   });
  return diff;
}

}  // namespace sprof::report
