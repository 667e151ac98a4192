#include "sprof/report/folded_stacks.hpp"

#include <doctest/doctest.h>

#include "report_profile_builder.hpp"

namespace sprof::report {
namespace {

ReportProfile profile() {
  auto p = read_processed_profile(test::report_profile_json());
  REQUIRE(p.has_value());
  return std::move(*p);
}

TEST_CASE("folded stacks: one sorted line per distinct stack, root first, with its weight") {
  const ReportProfile p = profile();
  CHECK(folded_stacks(p, *select_threads(p, {})) ==
        "main;compute 2\n"
        "main;compute;leaf;inlined_helper 6\n"
        "main;recurse;recurse 2\n"
        "worker_entry;compute;leaf;inlined_helper 4\n");
}

TEST_CASE(
    "folded stacks with a thread frame keep threads apart; equal stacks of threads add up "
    "without") {
  ReportProfile p = profile();
  CHECK(folded_stacks(p, *select_threads(p, {"", "worker"}), {.thread_prefix = true}) ==
        "app (100)/worker (101);worker_entry;compute;leaf;inlined_helper 4\n");
  // Give both threads the same root: their leaf stacks are then one line without the prefix.
  for (Function& f : p.functions) {
    if (f.name == "worker_entry") f.name = "main";
  }
  const std::string merged = folded_stacks(p, *select_threads(p, {}));
  CHECK(merged.find("main;compute;leaf;inlined_helper 10\n") != std::string::npos);
  const std::string apart = folded_stacks(p, *select_threads(p, {}), {.thread_prefix = true});
  CHECK(apart.find("app (100)/main (100);main;compute;leaf;inlined_helper 6\n") !=
        std::string::npos);
  CHECK(apart.find("app (100)/worker (101);main;compute;leaf;inlined_helper 4\n") !=
        std::string::npos);
}

TEST_CASE("a ';' or line break in a name cannot split a folded frame") {
  ReportProfile p = profile();
  for (Function& f : p.functions) {
    if (f.name == "leaf") f.name = "operator;\nleaf";
  }
  CHECK(folded_stacks(p, *select_threads(p, {"", "worker"})) ==
        "worker_entry;compute;operator: leaf;inlined_helper 4\n");
}

}  // namespace
}  // namespace sprof::report
