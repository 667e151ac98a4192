#include "sprof/report/flame_graph.hpp"

#include <doctest/doctest.h>

#include <string>
#include <tuple>
#include <vector>

#include "report_profile_builder.hpp"

namespace sprof::report {
namespace {

ReportProfile profile() {
  auto p = read_processed_profile(test::report_profile_json());
  REQUIRE(p.has_value());
  return std::move(*p);
}

// Each drawn node, callers first, as "path start total self".
std::vector<std::string> layout(const ReportProfile& p, const FlameGraph& g) {
  std::vector<std::string> out;
  std::vector<std::pair<uint32_t, std::string>> pending{{0, "all"}};
  while (!pending.empty()) {
    auto [n, path] = pending.back();
    pending.pop_back();
    const FlameNode& node = g.nodes[n];
    out.push_back(path + " " + std::to_string(node.start) + " " + std::to_string(node.total) + " " +
                  std::to_string(node.self));
    for (auto c = node.children.rbegin(); c != node.children.rend(); ++c) {
      pending.emplace_back(*c, path + ";" + p.functions[*g.nodes[*c].function].name);
    }
  }
  return out;
}

TEST_CASE(
    "flame graph: threads' stacks merge into one tree, siblings by name, laid out in samples") {
  const ReportProfile p = profile();
  const FlameGraph g = build_flame_graph(p, *select_threads(p, {}));
  CHECK(g.total() == test::ReportProfileFacts::kWeight);
  CHECK(g.max_depth == 4);
  // The idle leaf `schedule` has no weight, so it is no frame.
  CHECK(layout(p, g) == std::vector<std::string>{
                            "all 0 14 0",
                            "all;main 0 10 0",
                            "all;main;compute 0 8 2",
                            "all;main;compute;leaf 0 6 0",
                            "all;main;compute;leaf;inlined_helper 0 6 6",
                            "all;main;recurse 8 2 0",
                            "all;main;recurse;recurse 8 2 2",
                            "all;worker_entry 10 4 0",
                            "all;worker_entry;compute 10 4 0",
                            "all;worker_entry;compute;leaf 10 4 0",
                            "all;worker_entry;compute;leaf;inlined_helper 10 4 4",
                        });
}

TEST_CASE("flame graph of one thread") {
  const ReportProfile p = profile();
  const FlameGraph g = build_flame_graph(p, *select_threads(p, {"", "worker"}));
  CHECK(g.total() == 4);
  REQUIRE(g.nodes[0].children.size() == 1);
  CHECK(p.functions[*g.nodes[g.nodes[0].children[0]].function].name == "worker_entry");
}

TEST_CASE("code kinds: kernel and JIT from the frame's category, libraries from the module") {
  ReportProfile p = profile();
  const auto function_named = [&](std::string_view name) {
    for (uint32_t f = 0; f < p.functions.size(); ++f) {
      if (p.functions[f].name == name) return f;
    }
    FAIL("no function " << name);
    return uint32_t{0};
  };
  const uint32_t compute = function_named("compute");
  const uint32_t leaf = function_named("leaf");
  const uint32_t recurse = function_named("recurse");
  const uint32_t main = function_named("main");
  p.functions[compute].module = "libcompute.so.1";
  for (ReportThread& t : p.threads) {
    for (Frame& frame : t.frames) {
      if (frame.function == leaf) frame.category = FrameCategory::kKernel;
      if (frame.function == recurse) frame.category = FrameCategory::kJit;
    }
  }
  const FlameGraph g = build_flame_graph(p, *select_threads(p, {}));
  CHECK(g.function_kinds[compute] == CodeKind::kLibrary);
  CHECK(g.function_kinds[leaf] == CodeKind::kKernel);
  CHECK(g.function_kinds[recurse] == CodeKind::kJit);
  CHECK(g.function_kinds[main] == CodeKind::kUser);  // "app": the program itself
  p.functions[main].module = "app.so.backup";        // ".so" inside a name is not a library
  CHECK(build_flame_graph(p, *select_threads(p, {})).function_kinds[main] == CodeKind::kUser);
}

TEST_CASE("the reader gives each frame the category the file names") {
  const ReportProfile p = profile();
  size_t user = 0;
  for (const Frame& frame : p.threads[1].frames) {
    CHECK(frame.category == FrameCategory::kUser);  // the worker's frames are all in "app"
    ++user;
  }
  CHECK(user == 4);
}

}  // namespace
}  // namespace sprof::report
