#include "sprof/report/flame_graph_svg.hpp"

#include <chrono>
#include <cstdio>
#include <string_view>

#include "flame_graph_script.hpp"
#include "sprof/report/function_stats.hpp"
#include "sprof/report/report_view.hpp"
#include "svg_text.hpp"

namespace sprof::report {

namespace {

// Geometry, in px. Labels are monospace, so their width is known without measuring.
constexpr double kPadding = 10;
constexpr double kFrameHeight = 16;
constexpr double kFrameGap = 1;
constexpr double kCharWidth = 7.2;  // 12 px monospace: 0.6 em per character
constexpr double kHeaderHeight = 80;
constexpr double kFooterHeight = 34;
constexpr Rgb kRootFill{200, 200, 200};

constexpr std::string_view kStyle = R"css(
text { font-family: monospace; font-size: 12px; fill: #000; }
#title { font-family: sans-serif; font-size: 17px; text-anchor: middle; }
#subtitle { font-family: sans-serif; fill: #555; text-anchor: middle; }
.button { fill: #0645ad; cursor: pointer; text-decoration: underline; }
#matched { text-anchor: end; }
g.f { cursor: pointer; }
g.f text { pointer-events: none; }
g.f:hover rect { stroke: #000; stroke-width: 0.5; }
g.caller rect { opacity: 0.55; }
)css";

void append_number(std::string& out, uint64_t value) { out += std::to_string(value); }

void append_fill(std::string& out, Rgb c) {
  out += "rgb(";
  append_number(out, c.r);
  out += ',';
  append_number(out, c.g);
  out += ',';
  append_number(out, c.b);
  out += ')';
}

// "<text id=... x=... y=... [class=...]>escaped</text>"
void append_text(std::string& out, std::string_view attributes, double x, double y,
                 std::string_view text) {
  out += "<text ";
  out += attributes;
  out += " x=\"";
  svg::append_fixed(out, x);
  out += "\" y=\"";
  svg::append_fixed(out, y);
  out += "\">";
  svg::append_escaped(out, text);
  out += "</text>\n";
}

std::string percent_text(uint64_t part, uint64_t whole) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%%", percent(part, whole));
  return buffer;
}

class SvgWriter {
 public:
  SvgWriter(const ReportProfile& profile, const FlameGraph& graph,
            const FlameGraphSvgOptions& options)
      : profile_(profile),
        graph_(graph),
        options_(options),
        graph_width_(options.width_px - 2 * kPadding),
        scale_(graph.total() == 0 ? 0.0 : graph_width_ / static_cast<double>(graph.total())) {}

  std::string write() {
    std::string frames;
    const size_t omitted = append_frames(frames);
    const double rows = graph_.max_depth + 1;
    const double height = kHeaderHeight + rows * kFrameHeight + kFooterHeight;
    out_.reserve(frames.size() + 8192);
    out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
    out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"";
    svg::append_fixed(out_, options_.width_px);
    out_ += "\" height=\"";
    svg::append_fixed(out_, height);
    out_ += "\" viewBox=\"0 0 ";
    svg::append_fixed(out_, options_.width_px);
    out_ += ' ';
    svg::append_fixed(out_, height);
    out_ += "\" data-graph-left=\"";
    svg::append_fixed(out_, kPadding);
    out_ += "\" data-graph-width=\"";
    svg::append_fixed(out_, graph_width_);
    out_ += "\" data-char-width=\"";
    svg::append_fixed(out_, kCharWidth);
    out_ += "\">\n<style>";
    out_ += kStyle;
    out_ += "</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n";
    append_header(omitted);
    out_ += "<g id=\"frames\">\n";
    out_ += frames;
    out_ += "</g>\n";
    append_text(out_, "id=\"details\"", kPadding, height - 12, " ");
    append_text(out_, "id=\"matched\"", options_.width_px - kPadding, height - 12, "");
    out_ += "<script type=\"text/ecmascript\"><![CDATA[";
    out_ += flame_graph_script();
    out_ += "]]></script>\n</svg>\n";
    return std::move(out_);
  }

 private:
  void append_header(size_t omitted) {
    append_text(out_, "id=\"title\"", options_.width_px / 2, 24, options_.title);
    std::string subtitle = options_.subtitle;
    if (omitted > 0) {
      if (!subtitle.empty()) subtitle += " \u00b7 ";
      char buffer[96];
      std::snprintf(buffer, sizeof buffer, "%zu frames narrower than %.2f px left out", omitted,
                    options_.min_width_px);
      subtitle += buffer;
    }
    append_text(out_, "id=\"subtitle\"", options_.width_px / 2, 44, subtitle);
    append_text(out_, "id=\"reset\" class=\"button\" style=\"display:none\"", kPadding, 24,
                "Reset zoom");
    out_ += "<text id=\"search\" class=\"button\" text-anchor=\"end\" x=\"";
    svg::append_fixed(out_, options_.width_px - kPadding);
    out_ += "\" y=\"24.00\">Search</text>\n";
    append_legend();
  }

  void append_legend() {
    const std::vector<LegendEntry> legend =
        options_.node_fills.empty() ? code_kind_legend() : options_.legend;
    out_ += "<g id=\"legend\">\n";
    double x = kPadding;
    for (const LegendEntry& entry : legend) {
      out_ += "<rect x=\"";
      svg::append_fixed(out_, x);
      out_ += "\" y=\"56.00\" width=\"12.00\" height=\"12.00\" fill=\"";
      append_fill(out_, entry.colour);
      out_ += "\"/>";
      append_text(out_, "class=\"legend\"", x + 16, 66, entry.label);
      x += 16 + kCharWidth * static_cast<double>(entry.label.size()) + 16;
    }
    out_ += "</g>\n";
  }

  // Appends every frame wide enough, callers before callees; returns how many were left out.
  size_t append_frames(std::string& out) const {
    size_t omitted = 0;
    std::vector<std::pair<uint32_t, bool>> pending{{0, true}};  // (node, drawn)
    while (!pending.empty()) {
      const auto [n, parent_drawn] = pending.back();
      pending.pop_back();
      const FlameNode& node = graph_.nodes[n];
      const double width = static_cast<double>(node.total) * scale_;
      const bool drawn = parent_drawn && width >= options_.min_width_px;
      if (drawn) {
        append_frame(out, n, width);
      } else {
        ++omitted;
      }
      for (auto c = node.children.rbegin(); c != node.children.rend(); ++c) {
        pending.emplace_back(*c, drawn);
      }
    }
    return omitted;
  }

  void append_frame(std::string& out, uint32_t n, double width) const {
    const FlameNode& node = graph_.nodes[n];
    static const Function kRoot{"all", "", ""};
    const Function& function = node.function ? profile_.functions[*node.function] : kRoot;
    const double x = kPadding + static_cast<double>(node.start) * scale_;
    const double rows_below = options_.inverted ? node.depth : graph_.max_depth - node.depth;
    const double y = kHeaderHeight + rows_below * kFrameHeight;
    Rgb fill = kRootFill;
    if (!options_.node_fills.empty()) {
      fill = options_.node_fills[n];
    } else if (node.function) {
      fill = code_kind_fill(graph_.function_kinds[*node.function], function.name);
    }
    out += "<g class=\"f\" data-s=\"";
    append_number(out, node.start);
    out += "\" data-n=\"";
    append_number(out, node.total);
    out += "\" data-d=\"";
    append_number(out, node.depth);
    out += "\"><title>";
    svg::append_escaped(out, function.name);
    if (!function.module.empty()) {
      out += "\nmodule: ";
      svg::append_escaped(out, function.module);
    }
    if (!function.file.empty()) {
      out += "\nfile: ";
      svg::append_escaped(out, function.file);
    }
    out += '\n';
    append_number(out, node.total);
    out += ' ';
    svg::append_escaped(out, options_.unit);
    out += node.total == 1 ? ", " : "s, ";
    out += percent_text(node.total, graph_.total());
    if (!options_.node_notes.empty()) {
      out += '\n';
      svg::append_escaped(out, options_.node_notes[n]);
    }
    out += "</title><rect x=\"";
    svg::append_fixed(out, x);
    out += "\" y=\"";
    svg::append_fixed(out, y);
    out += "\" width=\"";
    svg::append_fixed(out, width);
    out += "\" height=\"";
    svg::append_fixed(out, kFrameHeight - kFrameGap);
    out += "\" fill=\"";
    append_fill(out, fill);
    out += "\" rx=\"2\"/><text x=\"";
    svg::append_fixed(out, x + 3);
    out += "\" y=\"";
    svg::append_fixed(out, y + kFrameHeight - 5);
    out += "\">";
    svg::append_escaped(out, svg::fitted_label(function.name, width, kCharWidth));
    out += "</text></g>\n";
  }

  const ReportProfile& profile_;
  const FlameGraph& graph_;
  const FlameGraphSvgOptions& options_;
  const double graph_width_;
  const double scale_;  // px per sample
  std::string out_;
};

// "2026-11-27 17:03:26 UTC" for a wall-clock time in ms since the epoch.
std::string utc_date(double epoch_ms) {
  using namespace std::chrono;
  const sys_seconds time{seconds{static_cast<int64_t>(epoch_ms / 1000)}};
  const sys_days day = floor<days>(time);
  const year_month_day date{day};
  const hh_mm_ss clock{time - day};
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02u %02lld:%02lld:%02lld UTC",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<long long>(clock.hours().count()),
                static_cast<long long>(clock.minutes().count()),
                static_cast<long long>(clock.seconds().count()));
  return buffer;
}

}  // namespace

std::string flame_graph_svg(const ReportProfile& profile, const FlameGraph& graph,
                            const FlameGraphSvgOptions& options) {
  return SvgWriter(profile, graph, options).write();
}

std::string describe_profile(const ReportProfile& profile, const ThreadSet& threads,
                             const std::string& weight) {
  const ReportSummary summary = summarize(profile, threads);
  uint64_t drawn = 0;  // the samples the graph draws: with a stack, on the CPU
  for (const ReportThread* t : threads)
    drawn += t->samples - t->samples_without_stack - t->idle_samples;
  std::string out = summary.name.empty() ? "profile" : summary.name;
  // A date past year 9999 is no recording's (and would not fit the format): leave it out.
  constexpr double kLatestStartMs = 253402300799000.0;
  const double start_ms = profile.meta.start_time_ms;
  if (start_ms > 0 && start_ms <= kLatestStartMs) out += " \u00b7 " + utc_date(start_ms);
  out += " \u00b7 " + (weight.empty() ? std::to_string(drawn) + " samples" : weight);
  out += " \u00b7 " + std::to_string(summary.threads) +
         (summary.threads == 1 ? " thread" : " threads");
  return out;
}

}  // namespace sprof::report
