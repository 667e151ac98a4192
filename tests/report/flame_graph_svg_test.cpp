#include "sprof/report/flame_graph_svg.hpp"

#include <doctest/doctest.h>

#include <string>

#include "report_profile_builder.hpp"

namespace sprof::report {
namespace {

ReportProfile profile() {
  auto p = read_processed_profile(test::report_profile_json());
  REQUIRE(p.has_value());
  return std::move(*p);
}

std::string svg_of(const ReportProfile& p, const FlameGraphSvgOptions& options = {},
                   const ThreadFilter& filter = {}) {
  const ThreadSet threads = *select_threads(p, filter);
  return flame_graph_svg(p, build_flame_graph(p, threads), options);
}

size_t count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void rename(ReportProfile& p, std::string_view from, std::string to) {
  for (Function& f : p.functions) {
    if (f.name == from) f.name = to;
  }
}

// 1200 px wide, 10 px padding: 1180 px for 14 samples, 84.2857 px each. Rows of 16 px start at
// y=80; with the root at the bottom the deepest row (depth 4) is the first.
TEST_CASE("flame graph svg: a frame per node, as wide as its samples, named in its title") {
  const std::string svg = svg_of(profile());
  CHECK(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<svg "));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(count(svg, "<g class=\"f\"") == 11);
  CHECK(svg.find("<g class=\"f\" data-s=\"0\" data-n=\"8\" data-d=\"2\"><title>compute\n"
                 "module: app\nfile: app.cpp\n8 samples, 57.14%</title>"
                 "<rect x=\"10.00\" y=\"112.00\" width=\"674.29\" height=\"15.00\"") !=
        std::string::npos);
  CHECK(svg.find("<g class=\"f\" data-s=\"0\" data-n=\"14\" data-d=\"0\"><title>all\n"
                 "14 samples, 100.00%</title><rect x=\"10.00\" y=\"144.00\" width=\"1180.00\"") !=
        std::string::npos);
  // The worker's stack starts after main's 10 samples: x = 10 + 10 * 84.2857.
  CHECK(svg.find("<g class=\"f\" data-s=\"10\" data-n=\"4\" data-d=\"1\"><title>worker_entry\n"
                 "module: app\nfile: app.cpp\n4 samples, 28.57%</title>"
                 "<rect x=\"852.86\" y=\"128.00\" width=\"337.14\"") != std::string::npos);
  CHECK(svg.find(">recurse</text>") != std::string::npos);
  CHECK(svg.find("<script type=\"text/ecmascript\"><![CDATA[") != std::string::npos);
  CHECK(count(svg, "]]>") == 1);
  CHECK(svg.find("id=\"matched\"") != std::string::npos);
  CHECK(svg.find(">Search</text>") != std::string::npos);
  CHECK(svg.find("http://") == svg.find("http://www.w3.org/2000/svg"));  // nothing to fetch
}

TEST_CASE("flame graph svg: inverted puts the root at the top") {
  FlameGraphSvgOptions options;
  options.inverted = true;
  const std::string svg = svg_of(profile(), options);
  CHECK(svg.find("data-d=\"0\"><title>all\n14 samples, 100.00%</title><rect x=\"10.00\" "
                 "y=\"80.00\"") != std::string::npos);
  CHECK(svg.find("data-d=\"1\"><title>main\nmodule: app\nfile: app.cpp\n10 samples, "
                 "71.43%</title><rect x=\"10.00\" y=\"96.00\"") != std::string::npos);
}

TEST_CASE("flame graph svg: labels are cut to their frame, names are escaped") {
  ReportProfile p = profile();
  rename(p, "recurse", "recursive_descent_parser_of_everything_v2");
  rename(p, "leaf", "std::vector<int, Alloc<int>>::at&");
  const std::string svg = svg_of(p);
  // recurse: 2 samples, 168.57 px, room for 22 characters.
  CHECK(svg.find(">recursive_descent_pa..</text>") != std::string::npos);
  CHECK(svg.find("<title>recursive_descent_parser_of_everything_v2\n") != std::string::npos);
  CHECK(svg.find("<title>std::vector&lt;int, Alloc&lt;int&gt;&gt;::at&amp;\n") !=
        std::string::npos);
  CHECK(svg.find("<int") == std::string::npos);
}

TEST_CASE("flame graph svg: frames under the minimum width are left out and counted") {
  ReportProfile p = profile();
  p.meta.start_time_ms = 1795000000500;
  const ThreadSet threads = *select_threads(p, {});
  const std::string subtitle = describe_profile(p, threads);
  CHECK(subtitle == "app \u00b7 2026-11-18 11:06:40 UTC \u00b7 14 samples \u00b7 2 threads");
  ReportProfile far_future = p;
  far_future.meta.start_time_ms = 1e300;  // a file's number, not a date: left out
  CHECK(describe_profile(far_future, *select_threads(far_future, {})) ==
        "app \u00b7 14 samples \u00b7 2 threads");
  // recurse and its recursive call are 168.57 px wide.
  FlameGraphSvgOptions options;
  options.subtitle = subtitle;
  options.min_width_px = 200;
  const std::string svg = flame_graph_svg(p, build_flame_graph(p, threads), options);
  CHECK(count(svg, "<g class=\"f\"") == 9);
  CHECK(svg.find("<title>recurse") == std::string::npos);
  CHECK(svg.find(">" + subtitle + " \u00b7 2 frames narrower than 200.00 px left out</text>") !=
        std::string::npos);
}

TEST_CASE(
    "flame graph svg: colours by code kind with a legend; the same input gives the same bytes") {
  ReportProfile p = profile();
  const std::string svg = svg_of(p);
  for (const LegendEntry& entry : code_kind_legend()) {
    CHECK(svg.find(">" + entry.label + "</text>") != std::string::npos);
  }
  const Rgb compute = code_kind_fill(CodeKind::kUser, "compute");
  CHECK(svg.find("fill=\"rgb(" + std::to_string(compute.r) + "," + std::to_string(compute.g) + "," +
                 std::to_string(compute.b) + ")\"") != std::string::npos);
  // Kinds differ in hue family: user code is red-dominant, the kernel blue-dominant.
  CHECK(compute.r > compute.b);
  const Rgb kernel = code_kind_fill(CodeKind::kKernel, "compute");
  CHECK(kernel.b > kernel.r);
  CHECK(svg_of(p) == svg);
  CHECK(svg_of(p, {}, {"", "worker"}) != svg);
}

TEST_CASE("flame graph svg: per-node fills replace the kinds and their legend") {
  const ReportProfile p = profile();
  const ThreadSet threads = *select_threads(p, {});
  const FlameGraph g = build_flame_graph(p, threads);
  FlameGraphSvgOptions options;
  options.node_fills.assign(g.nodes.size(), Rgb{1, 2, 3});
  options.legend = {{"grew", Rgb{255, 0, 0}}};
  const std::string svg = flame_graph_svg(p, g, options);
  CHECK(count(svg, "fill=\"rgb(1,2,3)\"") == 11);
  CHECK(svg.find(">grew</text>") != std::string::npos);
  CHECK(svg.find(">kernel</text>") == std::string::npos);
}

}  // namespace
}  // namespace sprof::report
