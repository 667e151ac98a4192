#include "sprof/report/text_report.hpp"

#include <doctest/doctest.h>

#include <sstream>

#include "report_profile_builder.hpp"

namespace sprof::report {
namespace {

ReportProfile profile() {
  auto p = read_processed_profile(test::report_profile_json());
  REQUIRE(p.has_value());
  return std::move(*p);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST_CASE("long names lose their parameters, then template arguments, then their start") {
  CHECK(shorten_name("main", 10) == "main");
  const std::string cxx = "void std::__introsort_loop<double*, long>(double*, double*, long)";
  CHECK(shorten_name(cxx, 100) == cxx);
  CHECK(shorten_name(cxx, 50) == "void std::__introsort_loop<double*, long>(\u2026)");
  CHECK(shorten_name(cxx, 32) == "void std::__introsort_loop<\u2026>(\u2026)");
  CHECK(shorten_name(cxx, 30) == "\u2026::__introsort_loop<\u2026>(\u2026)");
  CHECK(shorten_name(cxx, 20) == "\u2026ntrosort_loop<\u2026>(\u2026)");
  CHECK(display_width(shorten_name(cxx, 20)) == 20);
  for (size_t width = 1; width < cxx.size(); ++width) {
    CHECK(display_width(shorten_name(cxx, width)) <= width);
  }
  // The last group is the parameter list; "(anonymous namespace)" stays.
  const std::string anonymous = "(anonymous namespace)::calc_thread(int, long) const";
  CHECK(shorten_name(anonymous, 45) == "(anonymous namespace)::calc_thread(\u2026) const");
  // Cut at a scope rather than inside a word.
  CHECK(shorten_name(anonymous, 30) == "\u2026::calc_thread(\u2026) const");
  // Rust: generic arguments collapse, the path's end stays.
  const std::string rust = "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop";
  CHECK(shorten_name(rust, 51) == "<alloc::vec::Vec<\u2026> as core::ops::drop::Drop>::drop");
  CHECK(shorten_name(rust, 30) == "<\u2026>::drop");
  CHECK(shorten_name("std::vector<std::pair<int, long>, std::allocator<int>>::push_back", 60) ==
        "std::vector<std::pair<\u2026>, std::allocator<\u2026>>::push_back");
  // Unbalanced brackets are left alone before the start is cut.
  CHECK(display_width(shorten_name("operator<<(std::ostream&, int)", 12)) == 12);
  CHECK(shorten_name("operator()", 10) == "operator()");
}

TEST_CASE("the function list fits the width and lists total, self, samples, module, name") {
  const ReportProfile p = profile();
  const ThreadSet all = *select_threads(p, {});
  ViewOptions options;
  const auto sections = build_sections(p, all, options);
  REQUIRE(sections.has_value());
  const std::vector<std::string> text = lines(sections_text(p, *sections, options, {80, false}));
  REQUIRE(text.size() == 8);
  CHECK(text[0].empty());
  CHECK(text[1] == " Total%    Self%    Samples  Module  Function");
  CHECK(text[2] == " 85.71%   14.29%         12  app     compute");
  CHECK(text[3] == " 71.43%   71.43%         10  app     inlined_helper");
  CHECK(text[7] == " 14.29%   14.29%          2  app     recurse");
  SUBCASE("limit and min-percent") {
    options.limit = 2;
    auto limited = lines(sections_text(p, *build_sections(p, all, options), options, {80, false}));
    REQUIRE(limited.size() == 5);
    CHECK(limited[4] == "# 4 more functions (--limit, --min-percent)");
    options.limit = 0;
    options.min_percent = 50;
    auto hot = lines(sections_text(p, *build_sections(p, all, options), options, {80, false}));
    CHECK(hot.size() == 2 + 4 + 1);  // compute, inlined_helper, leaf, main; the note
  }
}

TEST_CASE("no line is wider than the width, whatever the names") {
  profile::Profile gecko = test::make_report_profile();
  profile::ProfileSymbols symbols = test::make_report_symbols();
  ReportProfile p = profile();
  for (Function& f : p.functions) {
    f.name = "std::vector<std::pair<std::string, std::map<int, long>>>::" + f.name + "(" +
             std::string(200, 'x') + ")";
    f.module = "libverylongmodulename-" + std::string(50, 'y') + ".so";
  }
  const ThreadSet all = *select_threads(p, {});
  for (size_t width : {40u, 80u, 120u}) {
    for (View view : {View::kFunctions, View::kTree}) {
      ViewOptions options;
      options.view = view;
      const std::string text =
          sections_text(p, *build_sections(p, all, options), options, {width, false});
      for (const std::string& line : lines(text)) CHECK_MESSAGE(display_width(line) <= width, line);
    }
  }
}

TEST_CASE("the tree indents callees and honours max-depth and min-percent") {
  const ReportProfile p = profile();
  const ThreadSet all = *select_threads(p, {});
  ViewOptions options;
  options.view = View::kTree;
  const auto text = lines(sections_text(p, *build_sections(p, all, options), options, {80, false}));
  REQUIRE(text.size() == 12);
  CHECK(text[1] == " Total%    Self%  Call tree (top-down)");
  CHECK(text[2] == " 71.43%    0.00%  main [app]");
  CHECK(text[3] == " 57.14%   14.29%    compute [app]");
  CHECK(text[5] == " 42.86%   42.86%        inlined_helper [app]");
  options.max_depth = 1;
  options.min_percent = 30;
  const auto shallow =
      lines(sections_text(p, *build_sections(p, all, options), options, {80, false}));
  REQUIRE(shallow.size() == 3);
  CHECK(shallow[2] == " 71.43%    0.00%  main [app]");  // worker_entry is 28.57%
  CHECK(lines(sections_text(p, *build_sections(p, all, options), options, {80, false})).size() ==
        3);
}

TEST_CASE("per-thread sections are headed by their thread") {
  const ReportProfile p = profile();
  ViewOptions options;
  options.per_thread = true;
  options.limit = 1;
  const auto text = lines(
      sections_text(p, *build_sections(p, *select_threads(p, {}), options), options, {80, false}));
  REQUIRE(text.size() == 10);
  CHECK(text[1] == "# thread main (100) of app (100): 11 samples");
  CHECK(text[3] == "100.00%    0.00%         10  app     main");
  CHECK(text[6] == "# thread worker (101) of app (100): 5 samples");
  CHECK(text[8] == "100.00%  100.00%          4  app     inlined_helper");
}

TEST_CASE("the header says what was recorded; colours only when asked") {
  const ReportProfile p = profile();
  const ReportSummary summary = summarize(p, *select_threads(p, {}));
  CHECK(summary.name == "app");  // the product is sprof's default: the root process names it
  ReportProfile named = p;
  named.meta.product = "nightly build";
  CHECK(summarize(named, *select_threads(named, {})).name == "nightly build");
  CHECK(summary.duration_ms == 20);
  CHECK(summary.samples == 16);
  CHECK(summary.idle_samples == 1);
  CHECK(summary.lost_samples == 3);
  CHECK(header_text(summary, "p.json.gz", {80, false}) ==
        "# sprof report: app (p.json.gz)\n"
        "# duration 0.02 s, event cpu-clock\n"
        "# 16 samples (3 lost), 1 idle left out (--include-idle), 1 process, 2 threads\n");
  CHECK(header_text(summary, "p.json.gz", {80, true}).find("\x1b[1m") == 0);
  ViewOptions options;
  const auto sections = *build_sections(p, *select_threads(p, {}), options);
  CHECK(sections_text(p, sections, options, {80, false}).find('\x1b') == std::string::npos);
  CHECK(sections_text(p, sections, options, {80, true}).find("\x1b[31m 85.71%\x1b[0m") !=
        std::string::npos);
}

}  // namespace
}  // namespace sprof::report
