// DWARF unwinding while recording, checked on a release-style program (-O2
// -fomit-frame-pointer) whose hot code runs in libm and libstdc++, which have no frame pointers
// on Debian: nearly every sample must reach the thread entry through the exact callers.
#include <doctest/doctest.h>

#include <cstdlib>

#include "profile_symbols.hpp"
#include "recorded_profile.hpp"
#include "unwind_chains.hpp"

using namespace sprof::test;

namespace {

// Records it_unwind (2 threads) with `--unwind mode` and measures its chains.
ChainStats recorded_chain_stats(const std::string& mode, const std::string& seconds) {
  const auto dir = make_temp_dir("unwind-" + mode);
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {"--unwind", mode}, {target_path("it_unwind"), "2", seconds});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto profile = read_profile(out);
  ProfileSymbols symbols(profile.processes.at(0));
  return chain_stats(profile.processes.at(0), symbols);
}

}  // namespace

TEST_CASE(
    "dwarf unwinding reaches the thread entry through every caller, libm and std::sort included") {
  skip_without_perf();
  const auto st = recorded_chain_stats("dwarf", "1.5");
  check_exact_chains(st, 200);
}

TEST_CASE("frame-pointer mode stays available and loses callers above libm, as documented") {
  skip_without_perf();
  const auto st = recorded_chain_stats("fp", "1.0");
  REQUIRE(st.samples > 100);
  // Frame pointers cannot walk through code built without them: most stacks stop early.
  CHECK(static_cast<double>(st.reach_entry) < 0.5 * static_cast<double>(st.samples));
}
