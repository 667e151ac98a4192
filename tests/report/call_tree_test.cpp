#include "sprof/report/call_tree.hpp"

#include <doctest/doctest.h>

#include "report_profile_builder.hpp"

namespace sprof::report {
namespace {

ReportProfile profile() {
  auto p = read_processed_profile(test::report_profile_json());
  REQUIRE(p.has_value());
  return std::move(*p);
}

// "name total/self" per node, indented two spaces a level.
std::string dump(const ReportProfile& p, const CallTree& tree) {
  std::string out;
  const auto visit = [&](const auto& self, uint32_t n, size_t depth) -> void {
    const CallNode& node = tree.nodes[n];
    out += std::string(depth * 2, ' ') + p.functions[node.function].name + " " +
           std::to_string(node.total) + "/" + std::to_string(node.self) + "\n";
    for (uint32_t c : node.children) self(self, c, depth + 1);
  };
  for (uint32_t r : tree.roots) visit(visit, r, 0);
  return out;
}

TEST_CASE("the top-down tree merges threads by function path, heaviest first") {
  const ReportProfile p = profile();
  const CallTree tree = top_down_tree(p, *select_threads(p, {}));
  CHECK(tree.weight == 14);
  CHECK(dump(p, tree) ==
        "main 10/0\n"
        "  compute 8/2\n"
        "    leaf 6/0\n"
        "      inlined_helper 6/6\n"
        "  recurse 2/0\n"
        "    recurse 2/2\n"
        "worker_entry 4/0\n"
        "  compute 4/0\n"
        "    leaf 4/0\n"
        "      inlined_helper 4/4\n");
}

TEST_CASE("callers of a function: who called it, each sample once at its innermost frame") {
  const ReportProfile p = profile();
  const ThreadSet all = *select_threads(p, {});
  auto compute = callers_tree(p, all, "compute");
  REQUIRE(compute.has_value());
  CHECK(dump(p, *compute) ==
        "compute 12/0\n"
        "  main 8/0\n"
        "  worker_entry 4/0\n");
  auto recurse = callers_tree(p, all, "recurse");
  REQUIRE(recurse.has_value());
  CHECK(dump(p, *recurse) ==
        "recurse 2/0\n"
        "  recurse 2/0\n"
        "    main 2/0\n");
  SUBCASE("a part of a name matches when no name is equal") {
    auto helper = callers_tree(p, all, "helper");
    REQUIRE(helper.has_value());
    CHECK(dump(p, *helper).rfind("inlined_helper 10/0\n  leaf 10/0\n", 0) == 0);
  }
  SUBCASE("no such function") {
    auto none = callers_tree(p, all, "nothing_like_it");
    REQUIRE_FALSE(none.has_value());
    CHECK(none.error().code == Errc::kNotFound);
    CHECK(none.error().message == "no function named nothing_like_it in the profile");
  }
}

}  // namespace
}  // namespace sprof::report
