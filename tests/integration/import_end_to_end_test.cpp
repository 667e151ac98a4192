// `perf record --call-graph dwarf` then `sprof import`, as the Firefox Profiler's own code sees it
// (profiler-cli, symbols from sprof's server): the same fixed work recorded by `sprof record`
// and by perf must give the same picture. On it_unwind (-O2 -fomit-frame-pointer, hot code in
// libm and in std::sort calling back a comparator) both profiles must reach the thread entry in
// >= 99 % of samples and split the time between the functions as the program itself measured it
// in that run (within 2 points), and every sample in the comparator must be unwound through the
// sort into the thread entry. Two runs are not compared directly: on a busy machine the same work
// costs a different CPU time split from run to run (4 points seen under load), and even the
// comparator's part of the sort moves (92.6 % in one run, 90.4 % in the next, seen in CI). The
// checks are on function names: a failed symbolication still loads, with hex names.
#include <doctest/doctest.h>
#include <signal.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "perf_tool.hpp"
#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

// Fixed work (rounds, not seconds), so both recordings sample the same amount of it whatever else
// the machine runs; about a second of CPU per thread.
constexpr const char* kRounds = "600";

constexpr const char* kStartThread = "libc.so.6!start_thread";
constexpr const char* kLibmHeavy = "it_unwind!(anonymous namespace)::libm_heavy(int)";
constexpr const char* kSortHeavy = "it_unwind!(anonymous namespace)::sort_heavy(int)";
constexpr const char* kCompare = "it_unwind!(anonymous namespace)::compare_values(double, double)";

// Percent of the calc threads' samples in (or below) each function.
struct Split {
  int64_t samples = 0;
  std::map<std::string, double> percent;
  // The percent of samples in or below `function`; 0 when none are.
  double of(const std::string& function) const {
    const auto it = percent.find(function);
    return it == percent.end() ? 0 : it->second;
  }
  std::string describe() const {
    std::string out = std::to_string(samples) + " samples:";
    for (const auto& [name, p] : percent) out += "\n  " + name + " " + std::to_string(p) + " %";
    return out;
  }
};

// What it_unwind measured with its threads' own clocks: percent of their CPU time in libm_heavy
// and in sort_heavy. Empty when its output has no "it_unwind cpu_ns:" line.
std::map<std::string, double> measured_split(const std::string& output) {
  const size_t at = output.find("it_unwind cpu_ns:");
  if (at == std::string::npos) return {};
  long long libm = 0, sort = 0, threads = 0;
  if (std::sscanf(output.c_str() + at,
                  "it_unwind cpu_ns: libm_heavy=%lld sort_heavy=%lld threads=%lld", &libm, &sort,
                  &threads) != 3 ||
      threads <= 0) {
    return {};
  }
  return {{kLibmHeavy, 100.0 * static_cast<double>(libm) / static_cast<double>(threads)},
          {kSortHeavy, 100.0 * static_cast<double>(sort) / static_cast<double>(threads)}};
}

std::string describe(const std::map<std::string, double>& truth) {
  if (truth.empty()) return "nothing (no \"it_unwind cpu_ns:\" line in its output)";
  std::string out;
  for (const auto& [function, percent] : truth)
    out += function + " " + std::to_string(percent) + " %; ";
  return out;
}

void check_against_program(const Split& split, const std::map<std::string, double>& truth) {
  REQUIRE(truth.size() == 2);
  for (const auto& [function, percent] : truth) {
    CAPTURE(function);
    CAPTURE(percent);
    CHECK(split.percent.at(function) > 5.0);
    CHECK(std::abs(split.percent.at(function) - percent) <= 2.0);
  }
}

// Adds one `thread samples` answer to a sum over threads.
void add_totals(const FunctionTotals& f, Split& split, std::map<std::string, int64_t>& totals) {
  split.samples += f.samples;
  for (const char* function : {kStartThread, kLibmHeavy, kSortHeavy, kCompare}) {
    const auto it = f.total_samples.find(function);
    totals[function] += it == f.total_samples.end() ? 0 : it->second;
  }
}

void set_percents(const std::map<std::string, int64_t>& totals, Split& split) {
  for (const auto& [name, total] : totals) {
    split.percent[name] =
        split.samples > 0 ? 100.0 * static_cast<double>(total) / static_cast<double>(split.samples)
                          : 0;
  }
}

// What profiler-cli says about the calc threads: all their samples, and only those in the
// comparator (with the percents of those in each function).
struct Views {
  Split all;
  Split in_comparator;
};

// Loads the URL a `sprof record`/`import` serving in the background prints, and sums what
// profiler-cli says about the calc threads.
Views views_through_profiler_cli(BackgroundProcess& sprof) {
  const std::string log = sprof.wait_for_log("sprof: open ", std::chrono::seconds(120));
  INFO("sprof log:\n" << sprof.log());
  REQUIRE_FALSE(log.empty());
  auto cli = ProfilerCli::locate();
  REQUIRE_MESSAGE(cli.has_value(), (cli.has_value() ? "" : cli.error().message));
  auto loaded = cli->load(log_value_after(log, "sprof: open "));
  INFO("load: " << loaded.out << loaded.err << "\n" << cli->session_log());
  REQUIRE(loaded.exit_code == 0);
  const auto info = cli->profile_info();
  std::map<std::string, int64_t> totals, comparator_totals;
  Views views;
  for (const char* name : {"calc-0", "calc-1"}) {
    const int thread = thread_index_named(info.out, name);
    INFO("profile info: " << info.out);
    REQUIRE(thread >= 0);
    add_totals(function_totals(cli->thread_samples(thread).out), views.all, totals);
    add_totals(function_totals(cli->thread_samples_containing(thread, "compare_values").out),
               views.in_comparator, comparator_totals);
  }
  set_percents(totals, views.all);
  set_percents(comparator_totals, views.in_comparator);
  CHECK(sprof.stop(SIGINT, std::chrono::seconds(30)) == 0);
  return views;
}

// The comparator runs only inside std::sort, called from sort_heavy: each of its samples must be
// unwound through the sort (the frames -fomit-frame-pointer leaves hardest) to sort_heavy and on
// to the thread entry. True of each profile on its own, whatever the run's split.
void check_comparator_unwound(const Views& views) {
  INFO("samples in the comparator: " << views.in_comparator.describe());
  CHECK(views.all.of(kCompare) > 5.0);
  CHECK(views.in_comparator.samples > 0);
  CHECK(views.in_comparator.of(kSortHeavy) >= 99.0);
  CHECK(views.in_comparator.of(kStartThread) >= 99.0);
}

}  // namespace

TEST_CASE("perf record --call-graph dwarf + sprof import shows what sprof record shows") {
  skip_without_perf_tool();
  const auto dir = make_temp_dir("import-e2e");
  const std::vector<std::string> workload = {target_path("it_unwind"), "2", "0", kRounds};

  // Both at 4000 Hz; the Gecko form is served (--no-presymbolicate), so names come from sprof's
  // symbol server.
  Views recorded;
  std::map<std::string, double> recorded_truth, imported_truth;
  {
    std::vector<std::string> argv = {
        kSprofExe, "record", "--no-open",           "-P", "0",
        "-r",      "4000",   "--no-presymbolicate", "-o", dir + "/record.json.gz",
        "--"};
    argv.insert(argv.end(), workload.begin(), workload.end());
    BackgroundProcess sprof(argv, dir + "/record.log");
    recorded = views_through_profiler_cli(sprof);
    recorded_truth = measured_split(sprof.log());  // the command's stdout shares sprof's log
  }
  Views imported;
  {
    const auto perf =
        perf_record(dir + "/perf.data", {"--call-graph", "dwarf", "-F", "4000"}, workload);
    INFO("perf record stderr: " << perf.err);
    REQUIRE(perf.exit_code == 0);
    imported_truth = measured_split(perf.out);
    BackgroundProcess sprof({kSprofExe, "import", "--no-open", "-P", "0", "--no-presymbolicate",
                             "-o", dir + "/import.json.gz", dir + "/perf.data"},
                            dir + "/import.log");
    imported = views_through_profiler_cli(sprof);
  }
  MESSAGE("sprof record: " << recorded.all.describe()
                           << "\n  its run measured: " << describe(recorded_truth));
  MESSAGE("perf record + sprof import: " << imported.all.describe()
                                         << "\n  its run measured: " << describe(imported_truth));
  REQUIRE(recorded.all.samples > 2000);
  REQUIRE(imported.all.samples > 2000);
  // Every sample reaches the thread entry through sprof's unwinder, in both.
  CHECK(recorded.all.percent[kStartThread] >= 99.0);
  CHECK(imported.all.percent[kStartThread] >= 99.0);
  // Each profile splits the time as its run did, and unwinds the comparator through the sort.
  {
    INFO("sprof record's run measured: " << describe(recorded_truth));
    check_against_program(recorded.all, recorded_truth);
    check_comparator_unwound(recorded);
  }
  {
    INFO("perf record's run measured: " << describe(imported_truth));
    check_against_program(imported.all, imported_truth);
    check_comparator_unwound(imported);
  }
}
