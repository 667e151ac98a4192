#include "unwind_chains.hpp"

#include <doctest/doctest.h>

#include <algorithm>

namespace sprof::test {

ChainStats chain_stats(const ProcessView& process, ProfileSymbols& symbols) {
  ChainStats st;
  for (const auto& t : process.threads) {
    if (t.name.rfind("calc-", 0) != 0) continue;
    for (const auto& stack : t.stacks) {
      const auto names = symbols.names(stack);
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
      if (has(kLibm)) {
        ++st.in_libm_heavy;
        st.libm_exact +=
            contains_in_order(names, {"start_thread", kCalc, kOuter, kMiddle, kLibm});
      }
      if (has(kSort)) ++st.in_sort_heavy;
      if (has(kCompare)) {
        ++st.in_compare;
        st.compare_exact +=
            contains_in_order(names, {"start_thread", kCalc, kOuter, kMiddle, kSort, kCompare});
      }
    }
  }
  return st;
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
