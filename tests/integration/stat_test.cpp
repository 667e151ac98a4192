// `sprof stat` on st_known_counts, whose context switches and page faults the kernel's own
// accounting (getrusage, printed by the program) tells: the totals, the per-thread rows, -r,
// --json, -p with -d, the exit status, and the hardware counters where there is a PMU.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"
#include "subprocess.hpp"

namespace {

using sprof::test::run_process;

std::string target() { return std::string(sprof::test::kTargetsDir) + "/st_known_counts"; }

std::string temp_path(const char* name) {
  return std::string(sprof::test::kBinaryDir) + "/tests/integration/" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "sleeper voluntary_switches=200 minor_faults=3" -> 200 for ("sleeper", "voluntary_switches").
long program_count(const std::string& out, const std::string& who, const std::string& key) {
  const std::regex re(who + " .*" + key + "=([0-9]+)");
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(out, m, re), "no '" << who << " " << key << "' in: " << out);
  return std::stol(m[1]);
}

simdjson::dom::element parse(simdjson::dom::parser& parser, const std::string& text) {
  simdjson::dom::element root;
  const auto error = parser.parse(text).get(root);
  REQUIRE_MESSAGE(error == simdjson::SUCCESS, "not JSON: " << text);
  return root;
}

double counter(simdjson::dom::element root, const std::string& event) {
  for (auto c : root["counters"].get_array()) {
    if (std::string(c["event"].get_string().value()) == event) {
      REQUIRE(c["counted"].get_bool().value());
      return c["value"].get_double().value();
    }
  }
  FAIL("no counter " << event);
  return 0;
}

}  // namespace

TEST_CASE("sprof stat counts a command's context switches and page faults as the kernel does") {
  sprof::test::skip_without_perf();
  const std::string json = temp_path("stat_counts.json");
  const auto r = run_process(
      {sprof::test::kSprofExe, "stat", "--json", "-o", json, target(), "200", "2000", "7"});
  INFO(r.err);
  CHECK(r.exit_code == 7);  // the program's own status
  simdjson::dom::parser parser;
  const auto root = parse(parser, slurp(json));
  CHECK(root["exit_code"].get_int64().value() == 7);
  CHECK(root["runs"].get_int64().value() == 1);

  // From main on: sprof counts from exec, the kernel's total also has the launcher's wait.
  const long switches = program_count(r.out, "since_main", "voluntary_switches");
  const long faults = program_count(r.out, "process", "minor_faults");
  CHECK(switches >= 200);
  CHECK(counter(root, "context-switches") >= static_cast<double>(switches));
  // getrusage also counts the faults between fork and exec (sprof counts from exec) and stops
  // before the program's exit; perf's page-faults counts minor and major faults.
  const double counted_faults = counter(root, "page-faults");
  CHECK(counted_faults >= 2000);
  CHECK(counted_faults >= static_cast<double>(faults) * 0.9 - 50);
  CHECK(counted_faults <= static_cast<double>(faults) * 1.1 + 200);
  CHECK(counter(root, "task-clock") > 0);

  SUBCASE("per-thread rows: the sleeper's switches, the toucher's faults") {
    std::map<std::string, simdjson::dom::element> rows;
    for (auto t : root["threads"].get_array())
      rows[std::string(t["name"].get_string().value())] = t;
    REQUIRE(rows.count("st_sleeper") == 1);
    REQUIRE(rows.count("st_known_counts") == 1);
    const auto sleeper = rows["st_sleeper"]["counters"];
    const auto main_thread = rows["st_known_counts"]["counters"];
    CHECK(rows["st_sleeper"]["pid"].get_int64().value() ==
          rows["st_known_counts"]["pid"].get_int64().value());
    CHECK(sleeper["context-switches"].get_double().value() >=
          static_cast<double>(program_count(r.out, "sleeper", "voluntary_switches")));
    CHECK(main_thread["context-switches"].get_double().value() < 100);
    CHECK(main_thread["page-faults"].get_double().value() >=
          static_cast<double>(program_count(r.out, "toucher", "faults_while_touching")));
    CHECK(sleeper["page-faults"].get_double().value() < 200);
  }
}

TEST_CASE("sprof stat prints perf's report: derived metrics, missing counters named, per thread") {
  sprof::test::skip_without_perf();
  const auto r = run_process({sprof::test::kSprofExe, "stat", target(), "50", "100"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("Performance counter stats for '") != std::string::npos);
  CHECK(
      std::regex_search(r.err, std::regex(R"([0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized)")));
  CHECK(std::regex_search(r.err, std::regex(R"([0-9]+ +context-switches +# +[0-9.]+ [KMG]?/sec)")));
  CHECK(r.err.find("seconds time elapsed") != std::string::npos);
  CHECK(std::regex_search(r.err, std::regex(R"(Per thread:[\s\S]*st_sleeper)")));
  // Never a zero for what was not counted: either a value with its metric, or named as missing.
  if (r.err.find("<not supported>") != std::string::npos) {
    CHECK(std::regex_search(r.err, std::regex(R"(Not counted: .*cycles.*: .+)")));
  } else {
    CHECK(std::regex_search(r.err, std::regex(R"(instructions +# +[0-9.]+ insn per cycle)")));
  }
}

TEST_CASE("sprof stat -r 3 reports the mean and perf's relative spread of each counter") {
  sprof::test::skip_without_perf();
  const std::string json = temp_path("stat_repeat.json");
  const auto r = run_process(
      {sprof::test::kSprofExe, "stat", "-r", "3", "--json", "-o", json, target(), "30", "100"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  // Three runs: three times the program's output.
  CHECK(std::regex_search(r.out, std::regex("(process voluntary[^\\n]*\\n[\\s\\S]*){3}")));
  simdjson::dom::parser parser;
  const auto root = parse(parser, slurp(json));
  CHECK(root["runs"].get_int64().value() == 3);
  CHECK(counter(root, "context-switches") >= 30);
  // perf's spread is the standard deviation of the mean over the mean: for 3 non-negative runs at
  // most 100 %, reached when one run alone counted anything (cpu-migrations on a quiet machine).
  // The context switches are >= 30 in every run, so theirs is far below that.
  for (auto c : root["counters"].get_array()) {
    const double spread = c["rel_stddev_pct"].get_double().value();
    CAPTURE(std::string(c["event"].get_string().value()));
    CHECK(spread >= 0);
    CHECK(spread <= 100.0 + 1e-9);
    if (c["event"].get_string().value() == "context-switches") CHECK(spread < 50);
  }
  CHECK(root["threads"].get_array().size() == 0);  // rows are one run's

  const auto text = run_process({sprof::test::kSprofExe, "stat", "-r", "2", target(), "5", "10"});
  CHECK(text.err.find("(2 runs)") != std::string::npos);
  CHECK(std::regex_search(text.err, std::regex(R"(context-switches .*\( \+- +[0-9.]+% \))")));
}

TEST_CASE("sprof stat -p counts a running process for -d seconds") {
  sprof::test::skip_without_perf();
  sprof::test::BackgroundProcess program({target(), "--forever"}, temp_path("stat_forever.log"));
  REQUIRE(!program.wait_for_log("ready", std::chrono::seconds(30)).empty());
  const std::string json = temp_path("stat_attach.json");
  const auto r = run_process({sprof::test::kSprofExe, "stat", "-p", std::to_string(program.pid()),
                              "-d", "1", "--json", "-o", json});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  simdjson::dom::parser parser;
  const auto root = parse(parser, slurp(json));
  CHECK(root["exit_code"].is_null());
  const double elapsed = root["elapsed_s"]["mean"].get_double().value();
  CHECK(elapsed >= 0.99);
  CHECK(elapsed < 30);
  // 1 ms sleeps for a second: hundreds of switches even on a loaded machine.
  CHECK(counter(root, "context-switches") >= 50);
  bool found = false;
  for (auto t : root["threads"].get_array()) {
    found = found || t["tid"].get_int64().value() == program.pid();
  }
  CHECK(found);
  CHECK(program.stop(SIGTERM, std::chrono::seconds(10)) == 128 + SIGTERM);
}

TEST_CASE("sprof stat counts cycles and instructions where the machine has a PMU") {
  sprof::test::skip_without_perf();
  const std::string json = temp_path("stat_pmu.json");
  const auto r = run_process({sprof::test::kSprofExe, "stat", "-e", "cycles,instructions", "--json",
                              "-o", json, target(), "1", "500"});
  simdjson::dom::parser parser;
  if (r.exit_code != 0) {
    // Nothing countable: sprof says which counter is missing and why, and the test skips.
    const bool no_pmu = r.err.find("none of the events can be counted here") != std::string::npos;
    REQUIRE_MESSAGE(no_pmu, r.err);
    MESSAGE("skipped: no hardware PMU: cycles and instructions cannot be counted here (" << r.err
                                                                                         << ")");
    std::exit(77);
  }
  const auto root = parse(parser, slurp(json));
  CHECK(counter(root, "instructions") > 100000);
  CHECK(counter(root, "cycles") > 10000);
  for (auto c : root["counters"].get_array()) {
    if (std::string(c["event"].get_string().value()) == "instructions") {
      CHECK(std::string(c["metric"]["unit"].get_string().value()) == "insn per cycle");
      CHECK(c["metric"]["value"].get_double().value() > 0);
    }
  }
}
