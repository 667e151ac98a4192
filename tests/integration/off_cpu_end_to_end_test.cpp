// Off-CPU samples as the Firefox Profiler's own code sees them (profiler-cli;
// docs/firefox-profiler-format.md, "what the UI requires"): a thread that sleeps half its time in a
// named function shows that function, with its callers, only when idle samples are included, and
// the Idle category takes about half its samples. Function names need symbolication through sprof's
// server, so the recording is served and loaded from the URL sprof prints, as in
// end_to_end_test.cpp.
#include <doctest/doctest.h>
#include <signal.h>
#include <simdjson.h>

#include <cstdlib>
#include <map>

#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

struct SamplesSummary {
  std::map<std::string, int64_t> functions;  // topFunctionsByTotal: name -> totalSamples
  double idle_percent = 0;                   // categoryBreakdown share of "Idle"
  int64_t total_samples = 0;
};

// One "name: total samples" line per function, for failure messages.
std::string describe(const SamplesSummary& s) {
  std::string out;
  for (const auto& [name, total] : s.functions) out += name + ": " + std::to_string(total) + "\n";
  return out;
}

SamplesSummary summarize(const std::string& json) {
  SamplesSummary s;
  const FunctionTotals totals = function_totals(json);
  s.functions = totals.total_samples;
  s.total_samples = totals.samples;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS) return s;
  simdjson::dom::array categories;
  if (doc["categoryBreakdown"]["categories"].get(categories) == simdjson::SUCCESS) {
    for (auto c : categories) {
      std::string_view name;
      double percent = 0;
      if (c["name"].get(name) == simdjson::SUCCESS && name == "Idle" &&
          c["percentage"].get(percent) == simdjson::SUCCESS) {
        s.idle_percent = percent;
      }
    }
  }
  return s;
}

}  // namespace

TEST_CASE("profiler-cli shows where threads block only with --include-idle, with their callers") {
  skip_without_perf();
  auto cli = ProfilerCli::locate();
  REQUIRE_MESSAGE(cli.has_value(), (cli.has_value() ? "" : cli.error().message));

  const auto dir = make_temp_dir("offcpu-e2e");
  BackgroundProcess sprof({kSprofExe, "record", "--no-open", "-P", "0", "-o", dir + "/p.json.gz",
                           "--", target_path("offcpu_blockers"), "10", "20", "20", "300"},
                          dir + "/sprof.log");
  const std::string log = sprof.wait_for_log("sprof: open ", std::chrono::seconds(60));
  INFO("sprof log:\n" << sprof.log());
  REQUIRE_FALSE(log.empty());
  auto loaded = cli->load(log_value_after(log, "sprof: open "));
  INFO("load: " << loaded.out << loaded.err << "\n" << cli->session_log());
  REQUIRE(loaded.exit_code == 0);
  const auto info = cli->profile_info();

  const int sleeper = thread_index_named(info.out, "sleeper");
  REQUIRE(sleeper >= 0);
  const auto running = summarize(cli->thread_samples(sleeper).out);
  const auto with_idle = summarize(cli->thread_samples(sleeper, /*include_idle=*/true).out);
  INFO("running:\n" << describe(running) << "with idle:\n" << describe(with_idle));
  // The sleeping function and the path to it, symbolicated by sprof's server.
  // Functions of internal linkage are named as their symbols spell them.
  CHECK(with_idle.functions.count(
            "offcpu_blockers!(anonymous namespace)::sleep_in_named_function(double)") == 1);
  CHECK(with_idle.functions.count("offcpu_blockers!(anonymous namespace)::sleeper(int, double, "
                                  "double)") == 1);
  CHECK(with_idle.functions.count("libc.so.6!start_thread") == 1);
  CHECK(with_idle.functions.count("[kernel.kallsyms]!do_nanosleep") == 1);
  // Without idle samples the sleeping function keeps only the CPU it really used on its way
  // into and out of nanosleep (microseconds per call, more when the machine is busy and a
  // sample lands on that path): far less than the 20 ms it spends blocked per call.
  const auto in = [](const SamplesSummary& s, const std::string& f) {
    const auto it = s.functions.find(f);
    return it == s.functions.end() ? int64_t{0} : it->second;
  };
  const std::string sleeping =
      "offcpu_blockers!(anonymous namespace)::sleep_in_named_function(double)";
  CHECK(in(running, sleeping) * 10 < in(with_idle, sleeping));
  CHECK(running.functions.count("offcpu_blockers!(anonymous namespace)::sleeper_compute(double)") ==
        1);
  // Half of its time asleep: about half of all its samples are Idle.
  CHECK(with_idle.idle_percent > 35.0);
  CHECK(with_idle.idle_percent < 65.0);
  CHECK(with_idle.total_samples > running.total_samples);

  // Blocking on a mutex and on a pipe read show the waiting function the same way.
  for (const auto& [thread, function] :
       {std::pair<std::string, std::string>{
            "mutex-waiter", "offcpu_blockers!(anonymous namespace)::wait_for_lock()"},
        {"pipe-reader", "offcpu_blockers!(anonymous namespace)::read_from_pipe()"}}) {
    CAPTURE(thread);
    const int index = thread_index_named(info.out, thread);
    REQUIRE(index >= 0);
    const auto idle = summarize(cli->thread_samples(index, /*include_idle=*/true).out);
    INFO("functions:\n" << describe(idle));
    CHECK(idle.functions.count(function) == 1);
    CHECK(idle.idle_percent > 80.0);
  }
  CHECK(sprof.stop(SIGINT, std::chrono::seconds(10)) == 0);
}
