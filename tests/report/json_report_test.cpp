#include "sprof/report/json_report.hpp"

#include <doctest/doctest.h>
#include <simdjson.h>

#include "report_profile_builder.hpp"

namespace sprof::report {
namespace {

struct Parsed {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
};

std::unique_ptr<Parsed> report(const ViewOptions& options, const ThreadFilter& filter = {}) {
  auto p = read_processed_profile(test::report_profile_json());
  REQUIRE(p.has_value());
  const ThreadSet threads = *select_threads(*p, filter);
  const auto sections = build_sections(*p, threads, options);
  REQUIRE(sections.has_value());
  auto parsed = std::make_unique<Parsed>();
  const std::string json = report_json(*p, summarize(*p, threads), *sections, options);
  REQUIRE(parsed->parser.parse(json).get(parsed->root) == simdjson::SUCCESS);
  return parsed;
}

TEST_CASE("the JSON report: header, threads and functions with weights and percentages") {
  ViewOptions options;
  options.limit = 2;
  auto r = report(options);
  const auto root = r->root;
  CHECK(std::string_view(root["profile"]["name"]) == "app");
  CHECK(std::string_view(root["profile"]["event"]) == "cpu-clock");
  CHECK(uint64_t(root["profile"]["samples"]) == 16);
  CHECK(uint64_t(root["profile"]["idleSamples"]) == 1);
  CHECK(int64_t(root["profile"]["lostSamples"]) == 3);
  CHECK(uint64_t(root["profile"]["threads"]) == 2);
  CHECK(double(root["profile"]["durationMs"]) == 20);
  CHECK(std::string_view(root["view"]) == "functions");
  simdjson::dom::array sections = root["sections"];
  REQUIRE(sections.size() == 1);
  auto section = sections.at(0).value_unsafe();
  CHECK(uint64_t(section["weight"]) == 14);
  CHECK(simdjson::dom::array(section["threads"]).size() == 2);
  simdjson::dom::array functions = section["functions"];
  REQUIRE(functions.size() == 2);
  auto compute = functions.at(0).value_unsafe();
  CHECK(std::string_view(compute["name"]) == "compute");
  CHECK(std::string_view(compute["module"]) == "app");
  CHECK(uint64_t(compute["self"]) == 2);
  CHECK(uint64_t(compute["total"]) == 12);
  CHECK(double(compute["totalPercent"]) == doctest::Approx(85.71));
  CHECK(double(compute["selfPercent"]) == doctest::Approx(14.29));
}

TEST_CASE("the JSON tree of one thread nests children") {
  ViewOptions options;
  options.view = View::kTree;
  auto r = report(options, {"", "worker"});
  auto section = simdjson::dom::array(r->root["sections"]).at(0).value_unsafe();
  CHECK(std::string_view(r->root["view"]) == "tree");
  CHECK(uint64_t(section["weight"]) == 4);
  auto node = simdjson::dom::array(section["tree"]).at(0).value_unsafe();
  std::vector<std::string> path;
  for (;;) {
    path.emplace_back(std::string_view(node["name"]));
    CHECK(uint64_t(node["total"]) == 4);
    simdjson::dom::array children = node["children"];
    if (children.size() == 0) break;
    node = children.at(0).value_unsafe();
  }
  CHECK(path == std::vector<std::string>{"worker_entry", "compute", "leaf", "inlined_helper"});
}

}  // namespace
}  // namespace sprof::report
