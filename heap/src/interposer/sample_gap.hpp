// heap/src/interposer/sample_gap.hpp
//
// Where the next sampled allocation falls, as in tcmalloc and pprof: the sampling points form a
// Poisson process over the bytes a thread allocates, so the gap to the next point is an
// exponential draw with mean `mean_bytes`. An allocation of `size` bytes is sampled when a point
// falls inside it, which happens with probability 1 - exp(-size / mean); the reader divides by
// that probability to estimate the bytes a sample stands for (sprof/heap/sample_weight.hpp).
// After a sample the gap is drawn afresh, which by memorylessness leaves the process unchanged.
//
// Pure and allocation-free: the interposer calls it from malloc.
#pragma once

#include <cmath>
#include <cstdint>

namespace sprof::heap::interposer {

// xorshift64*: tiny state that fits in the thread's TLS, statistically fine for sampling.
// `state` must not be 0 (seed_random makes sure).
inline uint64_t next_random(uint64_t& state) {
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545F4914F6CDD1DULL;
}

// Mixes any bits (thread id, time, an address) into a non-zero state (splitmix64 finaliser).
inline uint64_t seed_random(uint64_t entropy) {
  uint64_t z = entropy + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return z != 0 ? z : 1;
}

// Bytes until the next sampling point: at least 1, so that `size < gap` tests "not sampled".
inline uint64_t draw_sample_gap(uint64_t& state, uint64_t mean_bytes) {
  // u uniform in (0, 1]: 53 random bits, never 0 so log(u) is finite.
  const double u = static_cast<double>((next_random(state) >> 11) + 1) * 0x1.0p-53;
  const double gap = -std::log(u) * static_cast<double>(mean_bytes);
  if (!(gap >= 1.0)) return 1;
  if (gap >= 0x1.0p62) return uint64_t{1} << 62;
  return static_cast<uint64_t>(gap);
}

}  // namespace sprof::heap::interposer
