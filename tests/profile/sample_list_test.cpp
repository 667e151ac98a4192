// A thread's samples in their compact store (SampleList): every value comes back as it went in,
// across block boundaries, including "none" and CPU deltas too large for 32 bits.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "sprof/profile/sample_list.hpp"

using namespace sprof::profile;

namespace {

Sample sample_at(size_t i) {
  Sample s;
  s.time_ms = 0.25 * static_cast<double>(i);
  if (i % 7 != 0) s.stack = static_cast<uint32_t>(i * 3);
  if (i % 5 == 1) {
    s.cpu_delta_ns = std::nullopt;
  } else if (i % 1000 == 3) {
    s.cpu_delta_ns = 4'294'967'294ULL + i;  // 2^32 - 2 and more: a rarely sampled thread
  } else {
    s.cpu_delta_ns = i * 1000;
  }
  return s;
}

void check_same(const Sample& got, const Sample& want) {
  CHECK(got.time_ms == want.time_ms);
  CHECK(got.stack == want.stack);
  CHECK(got.cpu_delta_ns == want.cpu_delta_ns);
}

}  // namespace

TEST_CASE("a sample list gives back every sample as added, across blocks") {
  SampleList list;
  CHECK(list.empty());
  constexpr size_t kSamples = 10'000;  // two full blocks and part of a third
  for (size_t i = 0; i < kSamples; ++i) list.push_back(sample_at(i));
  REQUIRE(list.size() == kSamples);
  CHECK_FALSE(list.empty());
  for (size_t i = 0; i < kSamples; ++i) {
    CAPTURE(i);
    check_same(list[i], sample_at(i));
  }
  check_same(list.back(), sample_at(kSamples - 1));
  size_t i = 0;
  for (const Sample& s : list) check_same(s, sample_at(i++));
  CHECK(i == kSamples);
}

TEST_CASE("a sample list keeps the largest values apart from its sentinels") {
  SampleList list;
  Sample s;
  s.stack = UINT32_MAX - 1;
  s.cpu_delta_ns = UINT64_MAX;
  list.push_back(s);
  s.cpu_delta_ns = UINT32_MAX;  // the "none" sentinel's value, as a real delta
  list.push_back(s);
  s.cpu_delta_ns = 0;
  s.stack = std::nullopt;
  list.push_back(s);
  CHECK(list[0].stack == UINT32_MAX - 1);
  CHECK(list[0].cpu_delta_ns == UINT64_MAX);
  CHECK(list[1].cpu_delta_ns == uint64_t{UINT32_MAX});
  CHECK(list[2].cpu_delta_ns == 0u);
  CHECK_FALSE(list[2].stack.has_value());
}
