// End to end, as a user would: `sprof record` a test program, let sprof serve it, and load the
// exact Firefox Profiler URL sprof printed with the Firefox Profiler's own code (profiler-cli).
// Symbolication goes through sprof's server; the checks are on function names, because a failed
// symbolication still loads (with hex names) and exits 0.
#include <doctest/doctest.h>
#include <signal.h>

#include <cstdlib>
#include <set>

#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

TEST_CASE("a recorded program opens in the Firefox Profiler with its functions named") {
  skip_without_perf();
  auto cli = ProfilerCli::locate();
  REQUIRE_MESSAGE(cli.has_value(), (cli.has_value() ? "" : cli.error().message));

  const auto dir = make_temp_dir("e2e");
  const auto out = dir + "/p.json.gz";
  BackgroundProcess sprof(
      {kSprofExe, "record", "--no-open", "-P", "0", "-o", out, "--", target_path("it_spin"), "0.8"},
      dir + "/sprof.log");
  const std::string log = sprof.wait_for_log("sprof: open ", std::chrono::seconds(60));
  INFO("sprof log:\n" << sprof.log());
  REQUIRE_FALSE(log.empty());
  const std::string url = log_value_after(log, "sprof: open ");
  REQUIRE(url.rfind("https://profiler.firefox.com/from-url/", 0) == 0);

  // The URL is parsed locally by profiler-cli (profiler.firefox.com is never contacted); the
  // profile and the symbol server come from sprof's server, as in the browser.
  auto loaded = cli->load(url);
  INFO("load: " << loaded.out << loaded.err << "\n" << cli->session_log());
  REQUIRE(loaded.exit_code == 0);
  // The file itself may already be the self-contained form (made in the background), so the
  // process comes from what the Firefox Profiler loaded: it_spin's only process.
  const auto info = cli->profile_info();
  const auto pids = process_pids(info.out);
  REQUIRE(pids.size() == 1);
  const int main_thread = thread_index_of(info.out, pids[0]);
  REQUIRE(main_thread >= 0);
  const auto samples = cli->thread_samples(main_thread);
  const auto names = top_function_names(samples.out);
  INFO("functions:\n" << join_lines(names));
  // Functions of internal linkage are named as their symbols spell them.
  CHECK(names.count("it_spin!(anonymous namespace)::spin_leaf(unsigned long)") == 1);
  CHECK(names.count("it_spin!(anonymous namespace)::spin_middle(double)") == 1);
  CHECK(names.count("it_spin!main") == 1);
  // libc has debug info here (libc6-dbg): found through the build-id tree.
  CHECK(names.count("libc.so.6!__libc_start_call_main") == 1);
  for (const auto& n : names) CHECK_MESSAGE(n.find("!0x") == std::string::npos, n);
  CHECK(sprof.stop(SIGINT, std::chrono::seconds(10)) == 0);

  // `sprof load` serves the saved profile with the same names (once record stopped, the file is
  // self-contained; the names then come from it).
  {
    BackgroundProcess loader({kSprofExe, "load", "--no-open", "-P", "0", out}, dir + "/load.log");
    const std::string load_log = loader.wait_for_log("sprof: open ", std::chrono::seconds(30));
    REQUIRE_FALSE(load_log.empty());
    auto cli2 = ProfilerCli::locate();
    REQUIRE(cli2.has_value());
    REQUIRE(cli2->load(log_value_after(load_log, "sprof: open ")).exit_code == 0);
    const auto names2 = top_function_names(cli2->thread_samples(main_thread).out);
    CHECK(names2.count("it_spin!(anonymous namespace)::spin_leaf(unsigned long)") == 1);
    CHECK(names2.count("libc.so.6!__libc_start_call_main") == 1);
    CHECK(loader.stop(SIGTERM, std::chrono::seconds(10)) == 0);
  }
}
