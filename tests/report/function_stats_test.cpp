#include "sprof/report/function_stats.hpp"

#include <doctest/doctest.h>
#include <simdjson.h>

#include <string_view>
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

// std::__move_median_to_first, inlined into std::__introsort_loop by g++ -O2, samples at lines of
// stl_algo.h and, where a deeper inlined call lost its range, of predefined_ops.h: the Firefox
// Profiler keeps one function per name and file, so it lists the name twice. The report has one
// row per module and name, and a sample holding both counts once in its total.
TEST_CASE("one row per module and name, where the profile has a function per file of its lines") {
  using profile::Category;
  profile::Profile p;
  p.meta.interval_ms = 1;
  profile::Process& process = p.processes.emplace_back();
  process.pid = 7;
  const profile::Library lib = test::report_app_library();
  process.libs.push_back(lib);
  profile::Thread& t = process.threads.emplace_back();
  t.tid = 7;
  const auto frame = [&](uint64_t relative) {
    return t.intern_address_frame(lib.start + relative, Category::kUser);
  };
  const uint32_t at_algo = t.intern_stack(std::nullopt, frame(0x1010));
  const uint32_t at_ops = t.intern_stack(std::nullopt, frame(0x1020));
  const uint32_t caller = t.intern_stack(std::nullopt, frame(0x1110));  // a return address
  const uint32_t both = t.intern_stack(caller, frame(0x1020));
  double time = 0;
  for (const auto& [stack, count] : {std::pair{at_algo, 3}, {at_ops, 2}, {both, 1}}) {
    for (int i = 0; i < count; ++i) t.add_sample({stack, time++, 1000000});
  }
  const auto symbol = [](const char* outer, uint64_t start, const char* file, uint32_t line) {
    profile::AddressSymbol s;
    s.function = outer;
    s.function_start = start;
    s.function_size = 0x100;
    s.file = "sort.cpp";
    s.line = 1;
    s.inlines.push_back({"median", file, line});
    return s;
  };
  profile::ProfileSymbols symbols;
  symbols.add_module(
      {"app", lib.breakpad_id},
      profile::ModuleSymbols({{0x1010, symbol("introsort", 0x1000, "stl_algo.h", 85)},
                              {0x1020, symbol("introsort", 0x1000, "predefined_ops.h", 158)},
                              {0x110f, symbol("sort", 0x1100, "stl_algo.h", 90)}}));
  const std::string json = profile::processed_json_string(p, symbols);

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  simdjson::dom::element thread = doc["threads"].at(0);
  simdjson::dom::array strings = thread["stringArray"];
  int medians = 0;
  for (simdjson::dom::element name : simdjson::dom::array(thread["funcTable"]["name"])) {
    if (std::string_view(strings.at(uint64_t(name))) == "median") ++medians;
  }
  REQUIRE(medians == 2);  // as the Firefox Profiler lists it: once per file

  auto read = read_processed_profile(json);
  REQUIRE(read.has_value());
  const FunctionStats stats = function_stats(*read, *select_threads(*read, {}));
  CHECK(stats.weight == 6);
  CHECK(rows(*read, stats) ==
        std::vector<Row>{{"median", 6, 6}, {"introsort", 0, 6}, {"sort", 0, 1}});
}

}  // namespace
}  // namespace sprof::report
