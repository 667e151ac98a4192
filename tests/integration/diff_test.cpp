// `sprof diff` on two recordings of it_unwind: every function's shares are the ones
// `sprof report --json` gives for each file, the delta is their difference, a profile compared
// with itself changes nothing, --fail-above gates on the largest growth, and -o draws the
// differential flame graph of the new recording.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

ProcessResult run_sprof(std::vector<std::string> args) {
  args.insert(args.begin(), kSprofExe);
  return run_process(args);
}

// "module!name" -> total percent, as `sprof report --json` lists it for the whole profile.
std::map<std::string, double> reported_totals(const std::string& file) {
  const ProcessResult r = run_sprof({"report", "--json", file});
  REQUIRE(r.exit_code == 0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(r.out).get(doc) == simdjson::SUCCESS);
  std::map<std::string, double> out;
  for (simdjson::dom::element f : simdjson::dom::array(doc["sections"].at(0)["functions"])) {
    out[std::string(std::string_view(f["module"])) + "!" +
        std::string(std::string_view(f["name"]))] = double(f["totalPercent"]);
  }
  return out;
}

struct DiffedFunction {
  double base = 0, next = 0, delta = 0;
};

std::map<std::string, DiffedFunction> diffed_functions(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  std::map<std::string, DiffedFunction> out;
  for (simdjson::dom::element f : simdjson::dom::array(doc["functions"])) {
    out[std::string(std::string_view(f["module"])) + "!" +
        std::string(std::string_view(f["name"]))] = {double(f["base"]["totalPercent"]),
                                                     double(f["new"]["totalPercent"]),
                                                     double(f["totalDelta"])};
  }
  return out;
}

}  // namespace

TEST_CASE("diff of two recordings: each side is report's share, the delta their difference") {
  skip_without_perf();
  const std::string dir = make_temp_dir("diff-recordings");
  const std::string base = record_it_unwind(dir + "/base.json.gz", "2", "1");
  const std::string next = record_it_unwind(dir + "/new.json.gz", "1", "0.5");

  const ProcessResult r = run_sprof({"diff", "--json", base, next});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto diffed = diffed_functions(r.out);
  const auto base_totals = reported_totals(base);
  const auto next_totals = reported_totals(next);
  const std::string sort_heavy = "it_unwind!(anonymous namespace)::sort_heavy(int)";
  REQUIRE(diffed.count(sort_heavy) == 1);
  CHECK(diffed.at(sort_heavy).base > 0);
  CHECK(diffed.at(sort_heavy).next > 0);
  double largest_growth = 0;
  for (const auto& [name, f] : diffed) {
    INFO(name);
    const auto in_base = base_totals.find(name);
    const auto in_next = next_totals.find(name);
    CHECK(f.base == (in_base == base_totals.end() ? 0.0 : in_base->second));
    CHECK(f.next == (in_next == next_totals.end() ? 0.0 : in_next->second));
    CHECK(std::abs(f.delta - (f.next - f.base)) <= 0.011);  // each rounded to hundredths
    largest_growth = std::max(largest_growth, f.delta);
  }

  // A profile compared with itself: every function in both, nothing changed.
  const ProcessResult same = run_sprof({"diff", "--json", "--fail-above", "0", base, base});
  REQUIRE(same.exit_code == 0);
  const auto unchanged = diffed_functions(same.out);
  CHECK(unchanged.size() == base_totals.size());
  for (const auto& [name, f] : unchanged) CHECK(f.delta == 0);

  // --fail-above: 4 when the largest growth is over the limit, 0 at the limit.
  if (largest_growth > 0.02) {
    const ProcessResult gated =
        run_sprof({"diff", "--fail-above", std::to_string(largest_growth - 0.02), base, next});
    CHECK(gated.exit_code == 4);
    CHECK(gated.err.find("sprof: diff: ") == 0);
    CHECK(run_sprof({"diff", "--fail-above", std::to_string(largest_growth + 0.02), base, next})
              .exit_code == 0);
  }

  const std::string svg = dir + "/diff.svg";
  REQUIRE(run_sprof({"diff", "-o", svg, base, next}).exit_code == 0);
  std::ifstream in(svg);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(bytes.find(">Differential Flame Graph</text>") != std::string::npos);
  CHECK(bytes.find("<title>(anonymous namespace)::sort_heavy(int)\nmodule: it_unwind") !=
        std::string::npos);
  CHECK(bytes.find(" points since base</title>") != std::string::npos);
}
