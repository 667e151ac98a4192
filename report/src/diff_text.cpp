#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sprof/report/diff_report.hpp"

namespace sprof::report {

namespace {

// "100.00%   100.00%    +100.00    +100.00   ": two shares, two deltas (as wide as "SelfDelta").
constexpr size_t kNumberColumns = 8 + 2 + 8 + 2 + 9 + 2 + 9 + 3;
// Below this width the list has no module column.
constexpr size_t kNarrowWidth = 60;

std::string format(const char* fmt, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, fmt, value);
  return buffer;
}

std::string pad_right(std::string s, size_t width) {
  const size_t w = display_width(s);
  if (w < width) s.append(width - w, ' ');
  return s;
}

std::string module_of(const FunctionDelta& f) { return f.module.empty() ? "[unknown]" : f.module; }

// Red for growth, green for shrinkage (less time is good news), from half a point, as
// `perf diff` colours its deltas.
std::string paint_delta(double delta, bool colour) {
  std::string text = format("%+9.2f", delta);
  if (!colour || std::abs(delta) < 0.5) return text;
  return (delta > 0 ? "\x1b[31m" : "\x1b[32m") + text + "\x1b[0m";
}

std::string dim(const std::string& text, bool colour) {
  return colour && !text.empty() ? "\x1b[2m" + text + "\x1b[0m" : text;
}

}  // namespace

std::string diff_text(const ProfileDiff& diff, const DiffReportOptions& options,
                      const TextStyle& style) {
  const size_t shown =
      options.limit == 0 ? diff.functions.size() : std::min(options.limit, diff.functions.size());
  std::string out;
  out += "# Base: " + options.base_file + " (" + std::to_string(diff.base_weight) + " samples)\n";
  out += "# New:  " + options.next_file + " (" + std::to_string(diff.next_weight) + " samples)\n";
  out += "# Functions: " + std::to_string(diff.functions.size()) + ", in both profiles " +
         std::to_string(diff.matched) + "\n";
  out += "# Shares are of each profile's samples; deltas in points, the largest change first.\n";
  out += "#\n";
  size_t module_width = 0;
  if (style.width >= kNarrowWidth) {
    module_width = 6;
    for (size_t i = 0; i < shown; ++i)
      module_width = std::max(module_width, display_width(module_of(diff.functions[i])));
    module_width = std::min(module_width, style.width / 5);
  }
  const size_t fixed = kNumberColumns + (module_width ? module_width + 2 : 0);
  const size_t name_width = style.width > fixed + 8 ? style.width - fixed : 8;
  std::string heading = "   Base%      New%      Delta  SelfDelta   ";
  if (module_width) heading += pad_right("Module", module_width) + "  ";
  heading += "Function";
  out += style.colour ? "\x1b[1m" + heading + "\x1b[0m\n" : heading + "\n";
  for (size_t i = 0; i < shown; ++i) {
    const FunctionDelta& f = diff.functions[i];
    out += format("%7.2f%%", f.base.total_percent) + "  " +
           format("%7.2f%%", f.next.total_percent) + "  " +
           paint_delta(f.total_delta(), style.colour) + "  " +
           paint_delta(f.self_delta(), style.colour) + "   ";
    if (module_width)
      out += dim(pad_right(shorten_name(module_of(f), module_width), module_width), style.colour) +
             "  ";
    out += shorten_name(f.name, name_width) + "\n";
  }
  if (shown < diff.functions.size()) {
    out += dim("# " + std::to_string(diff.functions.size() - shown) + " more functions (--limit)",
               style.colour) +
           "\n";
  }
  return out;
}

}  // namespace sprof::report
