#include "profile_views.hpp"

#include "report_input.hpp"
#include "sprof/report/flame_graph.hpp"
#include "sprof/report/flame_graph_svg.hpp"
#include "sprof/report/report_view.hpp"
#include "sprof/report/text_report.hpp"

namespace sprof::cli {

namespace {

constexpr std::string_view kReport = "report.txt";
constexpr std::string_view kFlameGraph = "flamegraph.svg";

// A browser window is wider than a terminal; nothing in a served page is coloured.
constexpr report::TextStyle kPageText{120, false};
// As `sprof report --tree`: nodes under 0.5 % are left out (a real program's tree runs to
// thousands of lines), and the function list stops at what a page can show.
constexpr double kTreeMinPercent = 0.5;
constexpr size_t kFunctionsShown = 200;

Result<std::string> report_text(const OpenedProfile& opened, const std::string& path) {
  const report::ReportProfile& profile = opened.profile;
  std::string out =
      report::header_text(report::summarize(profile, opened.threads), path, kPageText);
  report::ViewOptions functions;
  functions.limit = kFunctionsShown;
  report::ViewOptions tree;
  tree.view = report::View::kTree;
  tree.min_percent = kTreeMinPercent;
  for (const report::ViewOptions& view : {functions, tree}) {
    SPROF_TRY(const std::vector<report::Section> sections,
              report::build_sections(profile, opened.threads, view));
    out += report::sections_text(profile, sections, view, kPageText);
  }
  return out;
}

std::string flame_graph(const OpenedProfile& opened) {
  report::FlameGraphSvgOptions svg;
  svg.title = "Flame Graph";
  svg.subtitle = report::describe_profile(opened.profile, opened.threads);
  return report::flame_graph_svg(opened.profile,
                                 report::build_flame_graph(opened.profile, opened.threads), svg);
}

}  // namespace

ProfileViews::ProfileViews(std::string profile_path, SymbolSources symbols)
    : profile_path_(std::move(profile_path)), symbols_(std::move(symbols)) {}

ProfileViews::~ProfileViews() = default;

std::optional<HttpReply> ProfileViews::view(std::string_view name) {
  const bool is_report = name == kReport;
  if (!is_report && name != kFlameGraph) return std::nullopt;
  const char* type = is_report ? "text/plain; charset=utf-8" : "image/svg+xml";
  // One view at a time: the second asker waits for the first instead of reading the file again.
  const std::lock_guard lock(mutex_);
  if (auto made = made_.find(name); made != made_.end())
    return HttpReply::whole(200, type, made->second);
  if (!read_) {
    read_ = true;
    ProfileSelection selection;
    selection.input = profile_path_;
    selection.symbols = symbols_;
    auto opened = open_profile(selection);
    if (opened) {
      opened_ = std::move(*opened);
    } else {
      read_error_ = "sprof cannot show " + profile_path_ + ": " + opened.error().message + "\n";
    }
  }
  if (!opened_) return HttpReply::whole(500, "text/plain; charset=utf-8", read_error_);
  std::string bytes;
  if (is_report) {
    auto text = report_text(*opened_, profile_path_);
    if (!text) {
      return HttpReply::whole(
          500, "text/plain; charset=utf-8",
          "sprof cannot report on " + profile_path_ + ": " + text.error().message + "\n");
    }
    bytes = std::move(*text);
  } else {
    bytes = flame_graph(*opened_);
  }
  const std::string& kept = made_.emplace(std::string(name), std::move(bytes)).first->second;
  // With both views made, the profile is no longer needed: the server keeps only the views.
  if (made_.size() == 2) opened_.reset();
  return HttpReply::whole(200, type, kept);
}

}  // namespace sprof::cli
