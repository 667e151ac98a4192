// A thread's samples in their compact store (SampleList): every value comes back as it went in,
// across block boundaries, including "none" and CPU deltas too large for 32 bits, and from a
// spill file.
#include "sprof/profile/sample_list.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "sprof/profile/sample_spill.hpp"

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

TEST_CASE("a sample list with a spill file keeps only its last block in memory") {
  auto spill = SampleSpill::open_temporary();
  REQUIRE(spill != nullptr);
  SampleList list;
  list.spill_to(spill);
  constexpr size_t kSamples = 10'000;
  for (size_t i = 0; i < kSamples; ++i) list.push_back(sample_at(i));
  REQUIRE(list.size() == kSamples);
  CHECK(list.samples_in_memory() == kSamples % 4096);  // two full blocks went to the file
  CHECK(spill->bytes() == 2 * 4096 * 16);
  // Read back in order, out of order, and from two threads at once (each has its own cache).
  for (size_t i = 0; i < kSamples; ++i) check_same(list[i], sample_at(i));
  check_same(list[5], sample_at(5));
  check_same(list[9'000], sample_at(9'000));
  check_same(list[4'100], sample_at(4'100));
  bool other_thread_same = true;
  std::thread reader([&] {
    for (size_t i = kSamples; i-- > 0;) {
      const Sample s = list[i];
      const Sample want = sample_at(i);
      other_thread_same = other_thread_same && s.time_ms == want.time_ms && s.stack == want.stack &&
                          s.cpu_delta_ns == want.cpu_delta_ns;
    }
  });
  for (const Sample& s : list) (void)s;
  reader.join();
  CHECK(other_thread_same);
}

TEST_CASE("two sample lists share a spill file without mixing their blocks") {
  auto spill = SampleSpill::open_temporary();
  REQUIRE(spill != nullptr);
  SampleList a, b;
  a.spill_to(spill);
  b.spill_to(spill);
  for (size_t i = 0; i < 9'000; ++i) {
    a.push_back(sample_at(i));
    Sample other = sample_at(i);
    other.time_ms = -other.time_ms;
    b.push_back(other);
  }
  for (size_t i = 0; i < 9'000; i += 7) {
    CHECK(a[i].time_ms == sample_at(i).time_ms);
    CHECK(b[i].time_ms == -sample_at(i).time_ms);
  }
}

TEST_CASE("no spill file where none can be made: the samples stay in memory") {
  CHECK(SampleSpill::open_temporary("/nonexistent-sprof-dir") == nullptr);
  SampleList list;
  list.spill_to(nullptr);
  for (size_t i = 0; i < 5'000; ++i) list.push_back(sample_at(i));
  CHECK(list.samples_in_memory() == 5'000);
}
