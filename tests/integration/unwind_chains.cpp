#include "unwind_chains.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace sprof::test {

ChainStats chain_stats(const ProcessView& process, ProfileSymbols& symbols) {
  ChainStats st;
  for (const auto& t : process.threads) {
    if (t.name.rfind("calc-", 0) != 0) continue;
    for (size_t i = 0; i < t.stacks.size(); ++i) {
      const auto names = symbols.names(t.stacks[i]);
      const std::optional<uint64_t> cpu_delta = t.cpu_deltas.at(i);
      const uint64_t cpu_ns = cpu_delta.value_or(0);
      st.cpu_weighted = st.cpu_weighted && cpu_delta.has_value();
      st.cpu_ns += cpu_ns;
      ++st.samples;
      // Kernel frames may sit on top of the leaf; the root must be the clone3 entry.
      if (!names.empty() && (names.front() == "__clone3" || names.front() == "clone3")) {
        ++st.reach_entry;
      }
      const auto has = [&](const char* n) {
        return std::find(names.begin(), names.end(), n) != names.end();
      };
      // it_unwind's functions have internal linkage: sprof names them as their symbols do.
      constexpr const char* kCalc = "(anonymous namespace)::calc_thread(int, long)";
      constexpr const char* kOuter = "(anonymous namespace)::outer_level(int)";
      constexpr const char* kMiddle = "(anonymous namespace)::middle_level(int)";
      constexpr const char* kLibm = "(anonymous namespace)::libm_heavy(int)";
      constexpr const char* kSort = "(anonymous namespace)::sort_heavy(int)";
      constexpr const char* kCompare = "(anonymous namespace)::compare_values(double, double)";
      // Exact: each of the program's own frames once, callers adjacent where no library code
      // sits between them (a frame repeated under itself, or one missing, is not exact).
      const auto once = [&](const char* n) {
        return std::count(names.begin(), names.end(), n) == 1;
      };
      const bool program_chain = contains_in_order(names, {"start_thread", kCalc}) &&
                                 adjacent_in_order(names, {kCalc, kOuter, kMiddle}) &&
                                 once(kCalc) && once(kMiddle);
      if (has(kLibm)) {
        ++st.in_libm_heavy;
        st.cpu_ns_libm_heavy += cpu_ns;
        st.libm_exact += program_chain && adjacent_in_order(names, {kMiddle, kLibm}) && once(kLibm);
      }
      if (has(kSort)) {
        ++st.in_sort_heavy;
        st.cpu_ns_sort_heavy += cpu_ns;
      }
      if (has(kCompare)) {
        ++st.in_compare;
        st.compare_exact += program_chain && adjacent_in_order(names, {kMiddle, kSort}) &&
                            contains_in_order(names, {kSort, kCompare}) && once(kSort) &&
                            once(kCompare);
      }
    }
  }
  return st;
}

std::optional<ProgramSplit> it_unwind_split(const std::string& output) {
  const size_t at = output.find("it_unwind cpu_ns:");
  if (at == std::string::npos) return std::nullopt;
  long long libm = 0, sort = 0, threads = 0;
  if (std::sscanf(output.c_str() + at,
                  "it_unwind cpu_ns: libm_heavy=%lld sort_heavy=%lld threads=%lld", &libm, &sort,
                  &threads) != 3 ||
      threads <= 0) {
    return std::nullopt;
  }
  return ProgramSplit{100.0 * static_cast<double>(libm) / static_cast<double>(threads),
                      100.0 * static_cast<double>(sort) / static_cast<double>(threads)};
}

void check_split(const ChainStats& st, const ProgramSplit& truth) {
  REQUIRE(st.samples > 0);
  const bool by_cpu = st.cpu_weighted && st.cpu_ns > 0;
  const auto share = [&](uint64_t cpu_ns, size_t samples) {
    return by_cpu ? 100.0 * static_cast<double>(cpu_ns) / static_cast<double>(st.cpu_ns)
                  : 100.0 * static_cast<double>(samples) / static_cast<double>(st.samples);
  };
  const double libm = share(st.cpu_ns_libm_heavy, st.in_libm_heavy);
  const double sort = share(st.cpu_ns_sort_heavy, st.in_sort_heavy);
  const std::string weighting = by_cpu ? "by CPU time" : "by sample count";
  MESSAGE("split " << weighting << ": libm_heavy " << libm
                   << " % (program: " << truth.libm_heavy_percent << " %), sort_heavy " << sort
                   << " % (program: " << truth.sort_heavy_percent << " %); samples "
                   << st.in_libm_heavy << " and " << st.in_sort_heavy << " of " << st.samples);
  CHECK(std::abs(libm - truth.libm_heavy_percent) <= 2.0);
  CHECK(std::abs(sort - truth.sort_heavy_percent) <= 2.0);
}

void check_exact_chains(const ChainStats& st, size_t min_samples) {
  MESSAGE("samples " << st.samples << ", reach entry " << st.reach_entry << ", libm_heavy "
                     << st.in_libm_heavy << " (exact " << st.libm_exact << "), compare_values "
                     << st.in_compare << " (exact " << st.compare_exact << ")");
  REQUIRE(st.samples > min_samples);
  CHECK(static_cast<double>(st.reach_entry) >= 0.99 * static_cast<double>(st.samples));
  REQUIRE(st.in_libm_heavy > 50);
  CHECK(static_cast<double>(st.libm_exact) >= 0.99 * static_cast<double>(st.in_libm_heavy));
  REQUIRE(st.in_compare > 10);
  CHECK(static_cast<double>(st.compare_exact) >= 0.99 * static_cast<double>(st.in_compare));
}

}  // namespace sprof::test
