// End to end for attach mode: `sprof record -p PID -d 1` on a running program, then the Firefox
// Profiler's own code (profiler-cli) loads the URL sprof printed and names the attached thread's
// functions through sprof's symbol server.
#include <doctest/doctest.h>
#include <signal.h>
#include <simdjson.h>

#include <chrono>
#include <cstdlib>
#include <set>

#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;
using namespace std::chrono_literals;

TEST_CASE(
    "an attach recording opens in the Firefox Profiler with the attached thread's functions") {
  skip_without_perf();
  auto cli = ProfilerCli::locate();
  REQUIRE_MESSAGE(cli.has_value(), (cli.has_value() ? "" : cli.error().message));

  const auto dir = make_temp_dir("attach-e2e");
  const auto out = dir + "/p.json.gz";
  BackgroundProcess target({target_path("it_attach")}, dir + "/target.log");
  REQUIRE_FALSE(target.wait_for_log("ready", 20s).empty());

  // Gecko form: `read_profile` reads the file while it is served.
  BackgroundProcess sprof({kSprofExe, "record", "--no-open", "--no-presymbolicate", "-P", "0", "-o",
                           out, "-p", std::to_string(target.pid()), "-d", "1"},
                          dir + "/sprof.log");
  const std::string log = sprof.wait_for_log("sprof: open ", 60s);
  INFO("sprof log:\n" << sprof.log());
  REQUIRE_FALSE(log.empty());

  auto loaded = cli->load(log_value_after(log, "sprof: open "));
  INFO("load: " << loaded.out << loaded.err << "\n" << cli->session_log());
  REQUIRE(loaded.exit_code == 0);

  const auto profile = read_profile(out);
  REQUIRE_FALSE(profile.processes.empty());
  int64_t spinner_tid = 0;
  for (const auto& t : profile.processes[0].threads) {
    if (t.name == "spinner") spinner_tid = t.tid;
  }
  REQUIRE(spinner_tid != 0);
  const int index = thread_index_of(cli->profile_info().out, spinner_tid);
  REQUIRE(index >= 0);
  const auto names = top_function_names(cli->thread_samples(index).out);
  std::string all;
  for (const auto& n : names) all += n + "\n";
  INFO("functions:\n" << all);
  CHECK(names.count("it_attach!(anonymous namespace)::attach_spin()") == 1);
  CHECK(sprof.stop(SIGINT, 10s) == 0);
}
