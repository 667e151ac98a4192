#include "sprof/heap/size_histogram.hpp"

#include <bit>
#include <charconv>
#include <cmath>

namespace sprof::heap {

size_t size_bucket(uint64_t size) { return static_cast<size_t>(std::bit_width(size)); }

uint64_t bucket_lower_bound(size_t bucket) { return bucket == 0 ? 0 : uint64_t{1} << (bucket - 1); }

std::string format_size_histogram(const SizeHistogram& sizes) {
  std::string out;
  for (size_t b = 0; b < sizes.size(); ++b) {
    const auto count = static_cast<uint64_t>(std::llround(sizes[b]));
    if (count == 0) continue;
    if (!out.empty()) out += ' ';
    out += std::to_string(bucket_lower_bound(b)) + ":" + std::to_string(count);
  }
  return out;
}

std::optional<SizeHistogram> parse_size_histogram(std::string_view text) {
  SizeHistogram sizes{};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (p < end) {
    uint64_t lower = 0, count = 0;
    auto [after_lower, e1] = std::from_chars(p, end, lower);
    if (e1 != std::errc() || after_lower == end || *after_lower != ':') return std::nullopt;
    auto [after_count, e2] = std::from_chars(after_lower + 1, end, count);
    if (e2 != std::errc()) return std::nullopt;
    const size_t bucket = size_bucket(lower);
    if (bucket_lower_bound(bucket) != lower) return std::nullopt;
    sizes[bucket] += static_cast<double>(count);
    p = after_count;
    if (p < end && *p++ != ' ') return std::nullopt;
  }
  return sizes;
}

}  // namespace sprof::heap
