// Re-indents compact JSON (one value per line at depth <= `max_depth`, deeper values kept on one
// line) so golden files are reviewable and diffs point at a line. Only whitespace changes.
#pragma once

#include <string>
#include <string_view>

namespace sprof::test {

std::string pretty_json(std::string_view compact, int max_depth = 4);

}  // namespace sprof::test
