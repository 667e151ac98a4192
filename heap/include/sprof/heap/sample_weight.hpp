// sprof/heap/sample_weight.hpp
//
// How many bytes one sampled allocation stands for. With a mean sampling interval of T bytes
// the interposer samples an allocation of s bytes with probability p = 1 - exp(-s / T) (see
// heap/src/interposer/sample_gap.hpp); s / p is then an unbiased estimate of the bytes that
// allocations like it account for (the pprof/tcmalloc estimator). For s << T it is about T, for
// s >> T about s. In record-all mode (T = 0) every allocation is its own size.
#pragma once

#include <cmath>
#include <cstdint>

namespace sprof::heap {

inline double estimated_bytes(uint64_t size, uint64_t sample_interval_bytes) {
  if (sample_interval_bytes == 0 || size == 0) return static_cast<double>(size);
  const double s = static_cast<double>(size);
  const double p = -std::expm1(-s / static_cast<double>(sample_interval_bytes));
  return p > 0 ? s / p : static_cast<double>(sample_interval_bytes);
}

// How many calls one sampled allocation of `size` bytes stands for: 1 / p, the same estimator
// counting calls instead of bytes (unbiased; the variance of a sum of such estimates is about the
// sum of c^2 - c over its samples, c = 1 / p each: docs/heap.md, "Heap analysis").
inline double estimated_calls(uint64_t size, uint64_t sample_interval_bytes) {
  if (sample_interval_bytes == 0 || size == 0) return 1;
  return estimated_bytes(size, sample_interval_bytes) / static_cast<double>(size);
}

// The size whose `estimated_bytes` is `bytes` (rounded, as a profile's rows hold it): the
// estimate grows with the size, so a bisection finds it. A profile keeps only the estimate, so a
// report gets the sizes back from it. Below about T the estimate is T + s / 2, so two sizes share
// one rounded estimate; the larger is returned, which keeps powers of two (the sizes programs ask
// for most) in their own histogram bucket. Above T the size comes back exactly.
inline uint64_t size_from_estimated_bytes(int64_t bytes, uint64_t sample_interval_bytes) {
  if (bytes <= 0) return 0;
  if (sample_interval_bytes == 0) return static_cast<uint64_t>(bytes);
  // The first size whose estimate rounds above `bytes`; estimated_bytes(s) >= s bounds it.
  uint64_t low = 0, high = static_cast<uint64_t>(bytes) + 1;
  while (low < high) {
    const uint64_t mid = low + (high - low) / 2;
    if (std::llround(estimated_bytes(mid, sample_interval_bytes)) > bytes) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low > 0 ? low - 1 : 0;
}

}  // namespace sprof::heap
