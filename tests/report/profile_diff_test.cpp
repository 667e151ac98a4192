// `sprof diff`'s library: functions matched by module and name, shares normalised by each
// profile's weight, the order of the list, its text and JSON forms, and the colours of the
// differential flame graph, on small profiles built by hand.
#include "sprof/report/profile_diff.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sprof/report/diff_flame_graph.hpp"
#include "sprof/report/diff_report.hpp"
#include "sprof/report/flame_graph.hpp"

namespace sprof::report {
namespace {

// A frame as "module!name", or "name" in module "app".
using Path = std::vector<std::string>;

// A profile of one thread whose samples are `stacks` (root first) with the given weights. The
// function ids follow the order functions are first met, so two profiles number them differently.
ReportProfile profile_of(const std::vector<std::pair<Path, uint64_t>>& stacks) {
  ReportProfile p;
  ReportThread& t = p.threads.emplace_back();
  t.name = "main";
  t.tid = t.pid = 1;
  std::map<std::string, uint32_t> function_ids;
  std::map<std::pair<std::optional<uint32_t>, uint32_t>, uint32_t> stack_ids;
  for (const auto& [path, weight] : stacks) {
    std::optional<uint32_t> prefix;
    for (const std::string& frame : path) {
      const size_t bang = frame.find('!');
      const std::string module = bang == std::string::npos ? "app" : frame.substr(0, bang);
      const std::string name = bang == std::string::npos ? frame : frame.substr(bang + 1);
      const auto [f, added] =
          function_ids.try_emplace(module + "!" + name, static_cast<uint32_t>(p.functions.size()));
      if (added) {
        p.functions.push_back({name, module, ""});
        t.frames.push_back({std::nullopt, std::nullopt, 0, f->second, 0, FrameCategory::kUser});
      }
      const auto [s, new_stack] =
          stack_ids.try_emplace({prefix, f->second}, static_cast<uint32_t>(t.stacks.size()));
      if (new_stack) {
        t.stacks.push_back({prefix, f->second, f->second});
        t.stack_weight.push_back(0);
        t.stack_cpu_ns.push_back(0);
      }
      prefix = s->second;
    }
    t.stack_weight[*prefix] += weight;
    t.samples += weight;
  }
  return p;
}

ThreadSet all(const ReportProfile& p) { return *select_threads(p, {}); }

// base: main -> a x6, main -> b x4 (10 samples); new: main -> c x5, main -> b x10, main -> a x5
// (20 samples). Shares: a 60% -> 25%, b 40% -> 50%, c 0% -> 25%, main 100% -> 100%.
ReportProfile base_profile() { return profile_of({{{"main", "a"}, 6}, {{"main", "b"}, 4}}); }
ReportProfile next_profile() {
  return profile_of({{{"main", "c"}, 5}, {{"main", "b"}, 10}, {{"main", "a"}, 5}});
}

// (name, base total %, new total %, total delta, self delta)
using Row = std::tuple<std::string, double, double, double, double>;

std::vector<Row> rows(const ProfileDiff& diff) {
  std::vector<Row> out;
  for (const FunctionDelta& f : diff.functions)
    out.emplace_back(f.name, f.base.total_percent, f.next.total_percent, f.total_delta(),
                     f.self_delta());
  return out;
}

TEST_CASE("diff: shares are normalised per profile and the largest change comes first") {
  const ReportProfile base = base_profile(), next = next_profile();
  const ProfileDiff diff = diff_profiles(base, all(base), next, all(next));
  CHECK(diff.base_weight == 10);
  CHECK(diff.next_weight == 20);
  CHECK(diff.matched == 3);  // main, a, b
  CHECK(rows(diff) == std::vector<Row>{{"a", 60, 25, -35, -35},
                                       {"c", 0, 25, 25, 25},
                                       {"b", 40, 50, 10, 10},
                                       {"main", 100, 100, 0, 0}});
  CHECK(diff.functions[0].base.self == 6);
  CHECK(diff.functions[0].next.self == 5);
  CHECK(diff.functions[1].base.total == 0);
}

TEST_CASE("diff: functions match by module and name, not by id or name alone") {
  const ReportProfile base = profile_of({{{"main", "liba.so!hash"}, 2}, {{"main"}, 2}});
  const ReportProfile next = profile_of({{{"main", "libb.so!hash"}, 2}, {{"main"}, 2}});
  const ProfileDiff diff = diff_profiles(base, all(base), next, all(next));
  CHECK(diff.matched == 1);
  REQUIRE(diff.functions.size() == 3);
  // Equal changes keep (module, name) order: liba.so before libb.so.
  CHECK(diff.functions[0].module == "liba.so");
  CHECK(diff.functions[0].self_delta() == -50);
  CHECK(diff.functions[1].module == "libb.so");
  CHECK(diff.functions[1].self_delta() == 50);
  CHECK(diff.functions[2].name == "main");
  CHECK(diff.functions[2].total_delta() == 0);
}

TEST_CASE("diff as text: shares, deltas in points, module and name; --limit") {
  const ReportProfile base = base_profile(), next = next_profile();
  const ProfileDiff diff = diff_profiles(base, all(base), next, all(next));
  const std::string text = diff_text(diff, {"before.json", "after.json", 3}, {80, false});
  CHECK(text.find("# Base: before.json (10 samples)\n# New:  after.json (20 samples)\n") == 0);
  CHECK(text.find("   Base%      New%      Delta  SelfDelta   Module  Function\n") !=
        std::string::npos);
  CHECK(text.find("\n  60.00%    25.00%     -35.00     -35.00   app     a\n") != std::string::npos);
  CHECK(text.find("\n   0.00%    25.00%     +25.00     +25.00   app     c\n") != std::string::npos);
  CHECK(text.find("main") == std::string::npos);  // the fourth, past --limit
  CHECK(text.find("# 1 more functions (--limit)\n") != std::string::npos);
}

TEST_CASE("diff as JSON: both sides' counts and shares, rounded deltas") {
  const ReportProfile base = base_profile(), next = next_profile();
  const ProfileDiff diff = diff_profiles(base, all(base), next, all(next));
  const std::string json = diff_json(diff, {"before.json", "after.json", 1});
  CHECK(json ==
        R"({"base":{"file":"before.json","samples":10},"new":{"file":"after.json","samples":20},)"
        R"("matchedFunctions":3,"functions":[{"name":"a","module":"app",)"
        R"("base":{"self":6,"total":6,"selfPercent":60,"totalPercent":60},)"
        R"("new":{"self":5,"total":5,"selfPercent":25,"totalPercent":25},)"
        R"("totalDelta":-35,"selfDelta":-35}]})"
        "\n");
}

TEST_CASE("differential flame graph: each frame's path share in new minus in base") {
  // base: main -> a -> b x4, main -> b x4 (8); new: main -> b x6, main -> a x2 (8).
  const ReportProfile base = profile_of({{{"main", "a", "b"}, 4}, {{"main", "b"}, 4}});
  const ReportProfile next = profile_of({{{"main", "b"}, 6}, {{"main", "a"}, 2}});
  const FlameGraph base_graph = build_flame_graph(base, all(base));
  const FlameGraph next_graph = build_flame_graph(next, all(next));
  const std::vector<double> deltas = path_deltas(base, base_graph, next, next_graph);
  REQUIRE(deltas.size() == next_graph.nodes.size());
  std::map<std::string, double> by_path;
  for (uint32_t n = 1; n < next_graph.nodes.size(); ++n) {
    std::string path;
    for (std::optional<uint32_t> at = n; at && *at != 0; at = next_graph.nodes[*at].parent)
      path =
          next.functions[*next_graph.nodes[*at].function].name + (path.empty() ? "" : ";") + path;
    by_path[path] = deltas[n];
  }
  // main;b is 75% of new and 50% of base; main;a 25% of new, 50% of base (b under it is not on
  // this path's share... a's path total counts its callees: 4 of 8).
  CHECK(by_path == std::map<std::string, double>{{"main", 0}, {"main;a", -25}, {"main;b", 25}});

  const DiffFills fills = diff_fills(deltas);
  REQUIRE(fills.node_fills.size() == deltas.size());
  for (uint32_t n = 0; n < deltas.size(); ++n) {
    const Rgb c = fills.node_fills[n];
    const auto rgb = std::tuple(c.r, c.g, c.b);
    if (deltas[n] == 25) CHECK(rgb == std::tuple(255, 60, 60));   // the largest growth: full red
    if (deltas[n] == -25) CHECK(rgb == std::tuple(60, 60, 255));  // the largest shrinkage
    if (deltas[n] == 0) CHECK(rgb == std::tuple(235, 235, 235));
  }
  REQUIRE(fills.legend.size() == 3);
  CHECK(fills.legend[0].label == "grew");
  CHECK(fills.legend[1].label == "shrank");
}

}  // namespace
}  // namespace sprof::report
