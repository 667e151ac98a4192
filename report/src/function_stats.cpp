#include "sprof/report/function_stats.hpp"

#include <algorithm>
#include <tuple>

namespace sprof::report {

FunctionStats function_stats(const ReportProfile& profile, const ThreadSet& threads, SortKey sort) {
  std::vector<FunctionStat> by_function(profile.functions.size());
  // The sample being counted last touched each function: counts recursion once per stack.
  std::vector<uint64_t> seen_in(profile.functions.size(), 0);
  uint64_t walk = 0;
  FunctionStats out;
  for (const ReportThread* thread : threads) {
    for (size_t s = 0; s < thread->stacks.size(); ++s) {
      const uint64_t weight = thread->stack_weight[s];
      if (weight == 0) continue;
      const uint64_t cpu_ns = thread->stack_cpu_ns[s];
      out.weight += weight;
      by_function[thread->stacks[s].function].self += weight;
      ++walk;
      for (std::optional<uint32_t> node = static_cast<uint32_t>(s); node;
           node = thread->stacks[*node].prefix) {
        const uint32_t f = thread->stacks[*node].function;
        if (seen_in[f] == walk) continue;
        seen_in[f] = walk;
        by_function[f].total += weight;
        by_function[f].cpu_ns += cpu_ns;
      }
    }
  }
  for (uint32_t f = 0; f < by_function.size(); ++f) {
    if (by_function[f].total == 0) continue;
    by_function[f].function = f;
    out.functions.push_back(by_function[f]);
  }
  const auto key = [&](const FunctionStat& s) {
    const uint64_t first = sort == SortKey::kSelf ? s.self : s.total;
    const uint64_t second = sort == SortKey::kSelf ? s.total : s.self;
    return std::tuple(first, second);
  };
  std::sort(out.functions.begin(), out.functions.end(),
            [&](const FunctionStat& a, const FunctionStat& b) {
              if (key(a) != key(b)) return key(a) > key(b);
              return profile.functions[a.function].name < profile.functions[b.function].name;
            });
  return out;
}

}  // namespace sprof::report
