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

}  // namespace sprof::heap
