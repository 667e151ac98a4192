// sprof/core/text_lines.hpp
//
// Line-by-line reading of text files (/proc/PID/maps, /proc/kallsyms, perf maps, marker files)
// without copying: `take_line` returns the next line and advances `text` past its newline.
#pragma once

#include <string_view>

namespace sprof {

// The text up to the next '\n' (excluded), or the rest when there is none; `text` moves past it.
inline std::string_view take_line(std::string_view& text) {
  const size_t newline = text.find('\n');
  const std::string_view line = text.substr(0, newline);
  text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
  return line;
}

}  // namespace sprof
