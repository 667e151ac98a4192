// DWARF unwinding while recording, checked on a release-style program (-O2
// -fomit-frame-pointer) whose hot code runs in libm and libstdc++, which have no frame pointers
// on Debian: nearly every sample must reach the thread entry through the exact callers.
#include <doctest/doctest.h>

#include <cstdlib>

#include "profile_symbols.hpp"
#include "recorded_profile.hpp"

using namespace sprof::test;

namespace {

struct ChainStats {
  size_t samples = 0;
  size_t reach_entry = 0;    // root frame is the thread entry (clone3)
  size_t in_libm_heavy = 0;  // samples inside libm_heavy or below it
  size_t libm_exact = 0;     // ... with the exact caller chain
  size_t in_compare = 0;     // samples in the comparator called back from std::sort
  size_t compare_exact = 0;
};

ChainStats chain_stats(const ProfileView& profile, ProfileSymbols& symbols) {
  ChainStats st;
  for (const auto& t : profile.processes.at(0).threads) {
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
      constexpr const char* kCalc = "(anonymous namespace)::calc_thread(int)";
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
      if (has(kCompare)) {
        ++st.in_compare;
        st.compare_exact +=
            contains_in_order(names, {"start_thread", kCalc, kOuter, kMiddle, kSort, kCompare});
      }
    }
  }
  return st;
}

// Records it_unwind (2 threads) with `--unwind mode` and measures its chains.
ChainStats record_it_unwind(const std::string& mode, const std::string& seconds) {
  const auto dir = make_temp_dir("unwind-" + mode);
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {"--unwind", mode}, {target_path("it_unwind"), "2", seconds});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto profile = read_profile(out);
  ProfileSymbols symbols(profile.processes.at(0));
  return chain_stats(profile, symbols);
}

}  // namespace

TEST_CASE("dwarf unwinding reaches the thread entry through every caller, libm and std::sort included") {
  skip_without_perf();
  const auto st = record_it_unwind("dwarf", "1.5");
  MESSAGE("samples " << st.samples << ", reach entry " << st.reach_entry << ", libm_heavy "
                  << st.in_libm_heavy << " (exact " << st.libm_exact << "), compare_values "
                  << st.in_compare << " (exact " << st.compare_exact << ")");
  REQUIRE(st.samples > 200);
  CHECK(static_cast<double>(st.reach_entry) >= 0.99 * static_cast<double>(st.samples));
  REQUIRE(st.in_libm_heavy > 50);
  CHECK(static_cast<double>(st.libm_exact) >= 0.99 * static_cast<double>(st.in_libm_heavy));
  REQUIRE(st.in_compare > 10);
  CHECK(static_cast<double>(st.compare_exact) >= 0.99 * static_cast<double>(st.in_compare));
}

TEST_CASE("frame-pointer mode stays available and loses callers above libm, as documented") {
  skip_without_perf();
  const auto st = record_it_unwind("fp", "1.0");
  REQUIRE(st.samples > 100);
  // Frame pointers cannot walk through code built without them: most stacks stop early.
  CHECK(static_cast<double>(st.reach_entry) < 0.5 * static_cast<double>(st.samples));
}
