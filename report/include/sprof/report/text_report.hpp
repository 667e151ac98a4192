// sprof/report/text_report.hpp
//
// A report as text for the terminal, in the spirit of `perf report --stdio`: a header of `#`
// lines, then the function list or the call tree, each line fitted to `width` columns (long
// names are cut so that their end, the part that tells functions apart, stays). ANSI colours only
// when asked (the CLI asks on a TTY).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/report/report_view.hpp"

namespace sprof::report {

struct TextStyle {
  size_t width = 80;
  bool colour = false;
};

// `name` in at most `width` columns: first the parameter list becomes "(…)", then template and
// generic arguments "<…>", and only then the start is cut, behind an "…".
std::string shorten_name(std::string_view name, size_t width);

// "1,234,567".
std::string thousands(uint64_t n);

// Columns `s` takes on a terminal (UTF-8 code points; no wide characters in symbol names).
size_t display_width(std::string_view s);

std::string header_text(const ReportSummary& summary, const std::string& file,
                        const TextStyle& style);

std::string sections_text(const ReportProfile& profile, const std::vector<Section>& sections,
                          const ViewOptions& options, const TextStyle& style);

}  // namespace sprof::report
