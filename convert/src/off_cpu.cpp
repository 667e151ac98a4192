#include "sprof/convert/off_cpu.hpp"

namespace sprof::convert {

void off_cpu_sample_times(uint64_t since_ns, uint64_t until_ns, const SampleGrid& grid,
                          std::vector<uint64_t>& out) {
  if (until_ns <= since_ns || grid.interval_ns == 0) return;
  const uint64_t interval = grid.interval_ns;
  // First grid point at or after `since_ns`, and the number of points before `until_ns`.
  const uint64_t first_k =
      since_ns <= grid.origin_ns ? 0 : (since_ns - grid.origin_ns + interval - 1) / interval;
  const uint64_t first = grid.origin_ns + first_k * interval;
  if (first >= until_ns) return;
  const uint64_t points = (until_ns - first + interval - 1) / interval;

  // j counts grid points since the interval began. Past the dense part the step grows tenfold
  // per decade; j stays a multiple of the step, so it lands on each decade boundary exactly.
  static_assert(kDenseOffCpuSamples % 10 == 0);
  uint64_t step = 1;
  uint64_t next_decade = kDenseOffCpuSamples;
  for (uint64_t j = 0; j < points;) {
    out.push_back(first + j * interval);
    j += step;
    if (j >= next_decade) {
      step *= 10;
      next_decade *= 10;
    }
  }
}

}  // namespace sprof::convert
