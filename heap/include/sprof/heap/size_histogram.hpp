// sprof/heap/size_histogram.hpp
//
// Allocations by requested size in power-of-two buckets (HeapAnalysis counts them), and the one
// text form meta.sprof keeps them in ("heapSizeHistogram"), so that the converter writes and
// `sprof report --heap` reads the same thing: "LOWER:COUNT" pairs separated by spaces, for the
// buckets that are not empty, smallest first, e.g. "0:2 16:100 1048576:3".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sprof::heap {

// Bucket 0 holds size 0, bucket k >= 1 holds [2^(k-1), 2^k).
inline constexpr size_t kSizeBuckets = 65;
// Counts by bucket: calls, so estimates (fractions) when sampled.
using SizeHistogram = std::array<double, kSizeBuckets>;

size_t size_bucket(uint64_t size);
uint64_t bucket_lower_bound(size_t bucket);  // the smallest size in `bucket`

// Counts are rounded to whole calls.
std::string format_size_histogram(const SizeHistogram& sizes);
// None if `text` is not that form (a lower bound that starts no bucket, a bad number).
std::optional<SizeHistogram> parse_size_histogram(std::string_view text);

}  // namespace sprof::heap
