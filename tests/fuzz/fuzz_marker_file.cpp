// Fuzz target: user marker files (marker-<pid>[-<tid>].txt) that recorded programs write: the
// file name from the MMAP record (first line of the input) and the marker lines (the rest).
#include "sprof/convert/marker_files.hpp"

namespace markers = sprof::convert;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view name = input.substr(0, newline);
  const std::string_view text = newline == std::string_view::npos ? "" : input.substr(newline + 1);
  (void)markers::parse_marker_file_name(name);
  for (const auto& line : markers::parse_marker_lines(text)) {
    (void)markers::user_marker(line, static_cast<double>(line.start_ns) / 1e6,
                               static_cast<double>(line.end_ns) / 1e6);
  }
  return 0;
}
