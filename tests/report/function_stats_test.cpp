#include "sprof/report/function_stats.hpp"

#include <doctest/doctest.h>

#include <tuple>

#include "report_profile_builder.hpp"

namespace sprof::report {
namespace {

// (name, self, total) in the order listed.
using Row = std::tuple<std::string, uint64_t, uint64_t>;

std::vector<Row> rows(const ReportProfile& p, const FunctionStats& stats) {
  std::vector<Row> out;
  for (const FunctionStat& s : stats.functions)
    out.emplace_back(p.functions[s.function].name, s.self, s.total);
  return out;
}

ReportProfile profile() {
  auto p = read_processed_profile(test::report_profile_json());
  REQUIRE(p.has_value());
  return std::move(*p);
}

TEST_CASE("self and total of merged threads; recursion counts once; inline frames are functions") {
  const ReportProfile p = profile();
  const FunctionStats stats = function_stats(p, *select_threads(p, {}));
  CHECK(stats.weight == test::ReportProfileFacts::kWeight);
  CHECK(rows(p, stats) == std::vector<Row>{{"compute", 2, 12},
                                           {"inlined_helper", 10, 10},
                                           {"leaf", 0, 10},
                                           {"main", 0, 10},
                                           {"worker_entry", 0, 4},
                                           {"recurse", 2, 2}});
}

TEST_CASE("sorting by self puts the leaves first") {
  const ReportProfile p = profile();
  const FunctionStats stats = function_stats(p, *select_threads(p, {}), SortKey::kSelf);
  REQUIRE(stats.functions.size() == 6);
  CHECK(std::get<0>(rows(p, stats)[0]) == "inlined_helper");
  CHECK(std::get<0>(rows(p, stats)[1]) == "compute");  // self 2, total 12
  CHECK(std::get<0>(rows(p, stats)[2]) == "recurse");  // self 2, total 2
}

TEST_CASE("one thread's functions") {
  const ReportProfile p = profile();
  const FunctionStats stats = function_stats(p, *select_threads(p, {"", "worker"}));
  CHECK(stats.weight == 4);
  CHECK(rows(p, stats) ==
        std::vector<Row>{
            {"inlined_helper", 4, 4}, {"compute", 0, 4}, {"leaf", 0, 4}, {"worker_entry", 0, 4}});
  const FunctionStat& top = stats.functions.front();
  CHECK(top.cpu_ns == 4 * 1000000);
  CHECK(percent(3, 4) == doctest::Approx(75.0));
  CHECK(percent(1, 0) == 0.0);
}

}  // namespace
}  // namespace sprof::report
