// End to end, as a user would: `sprof record` a test program, let sprof serve it, and load the
// exact Firefox Profiler URL sprof printed with the Firefox Profiler's own code (profiler-cli).
// Symbolication goes through sprof's server; the checks are on function names, because a failed
// symbolication still loads (with hex names) and exits 0.
#include <doctest/doctest.h>
#include <signal.h>

#include <cstdlib>
#include <set>
#include <simdjson.h>

#include "profiler_cli.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

constexpr int kSkipExitCode = 77;

std::string extract(const std::string& log, const std::string& prefix) {
  const auto at = log.find(prefix);
  if (at == std::string::npos) return {};
  const auto start = at + prefix.size();
  return log.substr(start, log.find_first_of(" \n", start) - start);
}

// Every function name in `thread samples --json`'s top functions.
std::set<std::string> top_function_names(const std::string& json) {
  std::set<std::string> names;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS) return names;
  simdjson::dom::array top;
  if (doc["topFunctionsByTotal"].get(top) != simdjson::SUCCESS) return names;
  for (auto f : top) {
    std::string_view name;
    if (f["name"].get(name) == simdjson::SUCCESS) names.emplace(name);
  }
  return names;
}

// The thread handle ("t-N") index of the thread with `tid`, from `profile info --json`.
int thread_index_of(const std::string& info_json, int64_t tid) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(info_json).get(doc) != simdjson::SUCCESS) return -1;
  for (auto p : doc["processes"].get_array()) {
    for (auto t : p["threads"].get_array()) {
      int64_t t_tid = 0;
      std::string_view handle;
      if (t["tid"].get(t_tid) == simdjson::SUCCESS && t_tid == tid &&
          t["threadHandle"].get(handle) == simdjson::SUCCESS) {
        return std::atoi(std::string(handle.substr(2)).c_str());
      }
    }
  }
  return -1;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += n + "\n";
  return out;
}

}  // namespace

TEST_CASE("a recorded program opens in the Firefox Profiler with its functions named") {
  std::string why;
  if (!perf_available(why)) {
    MESSAGE("skipped: " << why);
    std::exit(kSkipExitCode);
  }
  auto cli = ProfilerCli::locate();
  REQUIRE_MESSAGE(cli.has_value(), (cli.has_value() ? "" : cli.error().message));

  const auto dir = make_temp_dir("e2e");
  const auto out = dir + "/p.json.gz";
  BackgroundProcess sprof({kSprofExe, "record", "--no-open", "-P", "0", "-o", out, "--",
                           target_path("it_spin"), "0.8"},
                          dir + "/sprof.log");
  const std::string log = sprof.wait_for_log("sprof: open ", std::chrono::seconds(60));
  INFO("sprof log:\n" << sprof.log());
  REQUIRE_FALSE(log.empty());
  const std::string url = extract(log, "sprof: open ");
  REQUIRE(url.rfind("https://profiler.firefox.com/from-url/", 0) == 0);

  // The URL is parsed locally by profiler-cli (profiler.firefox.com is never contacted); the
  // profile and the symbol server come from sprof's server, as in the browser.
  auto loaded = cli->load(url);
  INFO("load: " << loaded.out << loaded.err << "\n" << cli->session_log());
  REQUIRE(loaded.exit_code == 0);
  const auto profile = read_profile(out);
  const auto info = cli->profile_info();
  const int main_thread = thread_index_of(info.out, profile.processes.at(0).pid);
  REQUIRE(main_thread >= 0);
  const auto samples = cli->thread_samples(main_thread);
  const auto names = top_function_names(samples.out);
  INFO("functions:\n" << joined(names));
  CHECK(names.count("it_spin!spin_leaf") == 1);
  CHECK(names.count("it_spin!spin_middle") == 1);
  CHECK(names.count("it_spin!main") == 1);
  // libc has debug info here (libc6-dbg): found through the build-id tree.
  CHECK(names.count("libc.so.6!__libc_start_call_main") == 1);
  for (const auto& n : names) CHECK_MESSAGE(n.find("!0x") == std::string::npos, n);
  CHECK(sprof.stop(SIGINT, std::chrono::seconds(10)) == 0);

  // `sprof load` serves the saved profile with the same names.
  {
    BackgroundProcess loader({kSprofExe, "load", "--no-open", "-P", "0", out},
                             dir + "/load.log");
    const std::string load_log = loader.wait_for_log("sprof: open ", std::chrono::seconds(30));
    REQUIRE_FALSE(load_log.empty());
    auto cli2 = ProfilerCli::locate();
    REQUIRE(cli2.has_value());
    REQUIRE(cli2->load(extract(load_log, "sprof: open ")).exit_code == 0);
    const auto names2 = top_function_names(cli2->thread_samples(main_thread).out);
    CHECK(names2.count("it_spin!spin_leaf") == 1);
    CHECK(names2.count("libc.so.6!__libc_start_call_main") == 1);
    CHECK(loader.stop(SIGTERM, std::chrono::seconds(10)) == 0);
  }
}
