// `sprof compare`: two recordings of it_unwind, one self-contained and one Gecko, served by one
// sprof and opened in the Firefox Profiler's compare view. The URL it prints is taken apart as the
// front end reads it, both profiles are fetched from the server like the browser would, and the
// Firefox Profiler's own code (profiler-cli) reads each one: the thread each view selects is the
// one sprof said it compares, and the Gecko file arrives self-contained (named functions).
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "http_test_client.hpp"
#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// decodeURIComponent of what encode_uri_component wrote.
std::string decode_uri_component(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// One view of the compare URL: which profile (its URL on sprof's server) and which thread.
struct View {
  std::string profile_url;
  int thread = -1;
};

struct CompareUrl {
  std::vector<View> views;
  std::string symbol_server;
};

// Reads the URL as the front end does: the outer query's profiles[] and symbolServer, each view
// a from-url URL whose path holds the encoded profile URL and whose query selects one thread.
CompareUrl parse_compare_url(const std::string& url) {
  CompareUrl out;
  const std::string prefix = "https://profiler.firefox.com/compare/calltree/?";
  REQUIRE(url.rfind(prefix, 0) == 0);
  std::istringstream query(url.substr(prefix.size()));
  for (std::string param; std::getline(query, param, '&');) {
    const size_t eq = param.find('=');
    REQUIRE(eq != std::string::npos);
    const std::string key = param.substr(0, eq);
    const std::string value = decode_uri_component(param.substr(eq + 1));
    if (key == "symbolServer") {
      out.symbol_server = value;
      continue;
    }
    REQUIRE(key == "profiles[]");
    static const std::regex view(
        R"(https://profiler\.firefox\.com/from-url/([^/]+)/calltree/\?thread=(\d+)&v=10)");
    std::smatch m;
    REQUIRE_MESSAGE(std::regex_match(value, m, view), value);
    out.views.push_back({decode_uri_component(m[1]), std::stoi(m[2])});
  }
  return out;
}

struct ComparedThread {
  std::string name;
  int64_t tid = 0;
};

// "sprof: comparing calc-1 (18610) of A with calc-1 (18625) of B": each side's thread.
std::vector<ComparedThread> compared_threads(const std::string& log) {
  static const std::regex line(
      R"(sprof: comparing (\S+) \((\d+)\) of .* with (\S+) \((\d+)\) of )");
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(log, m, line), log);
  return {{m[1], std::stoll(m[2])}, {m[3], std::stoll(m[4])}};
}

}  // namespace

TEST_CASE("compare: both profiles served, each view selecting the thread sprof names") {
  skip_without_perf();
  const std::string dir = make_temp_dir("compare");
  const std::string base = record_it_unwind(dir + "/base.json.gz", "2", "1", /*gecko=*/true);
  const std::string next = record_it_unwind(dir + "/new.json.gz", "2", "1");
  const std::string scratch = dir + "/tmp";
  fs::create_directories(scratch);

  std::string log;
  {
    BackgroundProcess sprof({"env", "TMPDIR=" + scratch, kSprofExe, "compare", "--no-open", "-P",
                             "0", "--thread", "calc-1", base, next},
                            dir + "/compare.log");
    const std::string opened = sprof.wait_for_log("sprof: serving ", 120s);
    log = sprof.log();
    INFO("sprof compare:\n" << log);
    const size_t at = log.find("sprof: open ");
    REQUIRE(at != std::string::npos);
    const std::string url = log.substr(at + 12, log.find('\n', at) - at - 12);
    const CompareUrl parsed = parse_compare_url(url);
    REQUIRE(parsed.views.size() == 2);
    CHECK(parsed.views[0].profile_url == parsed.symbol_server + "/profile.json");
    CHECK(parsed.views[1].profile_url == parsed.symbol_server + "/compared-profile.json");
    const std::vector<ComparedThread> threads = compared_threads(log);
    CHECK(threads[0].name == "calc-1");  // as --thread asked, in both
    CHECK(threads[1].name == "calc-1");

    // The server's port, from http://127.0.0.1:PORT/TOKEN.
    static const std::regex origin(R"(http://127\.0\.0\.1:(\d+)(/[A-Za-z0-9]+))");
    std::smatch m;
    REQUIRE(std::regex_match(parsed.symbol_server, m, origin));
    HttpTestClient http(static_cast<uint16_t>(std::stoi(m[1])));
    for (size_t side = 0; side < 2; ++side) {
      CAPTURE(side);
      const View& v = parsed.views[side];
      const HttpResult got = http.request("GET", v.profile_url.substr(v.profile_url.find(m[2])));
      REQUIRE(got.status == 200);
      const std::string copy = dir + "/served-" + std::to_string(side) + ".json.gz";
      std::ofstream(copy, std::ios::binary) << got.body;
      // Served self-contained, the Gecko one too: the view's thread index is the file's.
      auto text = sprof::profile::read_profile_json(copy);
      REQUIRE(text.has_value());
      CHECK(sprof::profile::detect_profile_format(*text) ==
            sprof::profile::ProfileFormat::kProcessed);
      auto cli = ProfilerCli::with_standalone(copy);
      REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
      bool found = false;
      for (const ThreadHandle& t : all_threads(cli->profile_info().out)) {
        if (t.index != v.thread) continue;
        found = true;
        CHECK(t.tid == threads[side].tid);
      }
      CHECK(found);
      const ProcessResult functions =
          cli->run({"thread", "functions", "--thread", "t-" + std::to_string(v.thread)});
      CHECK(functions.out.find("compare_values(double, double)") != std::string::npos);
    }
    CHECK(sprof.stop(SIGINT, 30s) == 0);
  }
  // The Gecko file's self-contained copy was made in a scratch folder, gone with sprof.
  for (const auto& entry : fs::directory_iterator(scratch)) {
    CHECK(entry.path().filename().string().rfind("sprof-compare-", 0) == std::string::npos);
  }
  CHECK(log.find(scratch + "/sprof-compare-") != std::string::npos);  // where it was
}

TEST_CASE("compare: a file that is not a profile is named, and nothing is served") {
  const std::string dir = make_temp_dir("compare-bad");
  const std::string bad = dir + "/bad.json";
  std::ofstream(bad) << "{\"not\": \"a profile\"}";
  const ProcessResult r = run_process({kSprofExe, "compare", "--no-open", "-P", "0", bad, bad});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find(bad + ": not a profile") != std::string::npos);
  CHECK(r.err.find("sprof: open ") == std::string::npos);
}
