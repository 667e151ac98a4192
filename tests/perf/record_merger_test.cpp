#include "sprof/perf/record_merger.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

namespace perf = sprof::perf;

namespace {

// A sample identified by (cpu, time); tid carries a per-record tag to check stability.
perf::Record sample(uint32_t cpu, uint64_t time, uint32_t tag = 0) {
  perf::SampleRecord s;
  s.id.cpu = cpu;
  s.id.time = time;
  s.id.tid = tag;
  return s;
}

struct Collected {
  std::vector<uint64_t> times;
  std::vector<uint32_t> tags;
  perf::RecordSink sink() {
    return [this](perf::Record&& r) {
      times.push_back(perf::record_time(r));
      tags.push_back(std::get<perf::SampleRecord>(r).id.tid);
    };
  }
};

}  // namespace

TEST_CASE("merger orders interleaved per-CPU records by time across rounds") {
  perf::RecordMerger merger;
  Collected out;
  // Round 1: CPU 0 read first, then CPU 1 (which already has newer records).
  for (uint64_t t : {10, 30, 50}) merger.add(sample(0, t));
  for (uint64_t t : {20, 40, 60, 80}) merger.add(sample(1, t));
  merger.end_round(out.sink());
  // Nothing is safe after the first round: round 2 may still hold records older than 80.
  CHECK(out.times.empty());
  CHECK(merger.buffered() == 7);

  // Round 2: CPU 0 had records from before CPU 1's newest one of round 1.
  for (uint64_t t : {55, 70, 90}) merger.add(sample(0, t));
  for (uint64_t t : {85, 100}) merger.add(sample(1, t));
  merger.end_round(out.sink());
  // Up to round 1's maximum (80) is now emitted, in order, including round 2's 55 and 70.
  CHECK(out.times == std::vector<uint64_t>{10, 20, 30, 40, 50, 55, 60, 70, 80});

  merger.flush(out.sink());
  CHECK(out.times == std::vector<uint64_t>{10, 20, 30, 40, 50, 55, 60, 70, 80, 85, 90, 100});
  CHECK(merger.buffered() == 0);
  CHECK(merger.late_records() == 0);
}

TEST_CASE("merger keeps insertion order for equal timestamps") {
  perf::RecordMerger merger;
  Collected out;
  merger.add(sample(0, 5, 1));
  merger.add(sample(1, 5, 2));
  merger.add(sample(0, 5, 3));
  merger.add(sample(1, 4, 4));
  merger.flush(out.sink());
  CHECK(out.times == std::vector<uint64_t>{4, 5, 5, 5});
  CHECK(out.tags == std::vector<uint32_t>{4, 1, 2, 3});
}

TEST_CASE("merger drops nothing: a record older than what was emitted still comes out") {
  perf::RecordMerger merger;
  Collected out;
  merger.add(sample(0, 100));
  merger.end_round(out.sink());
  merger.add(sample(0, 200));
  merger.end_round(out.sink());  // emits 100
  REQUIRE(out.times == std::vector<uint64_t>{100});
  merger.add(sample(1, 50));     // far too late
  merger.end_round(out.sink());  // emits up to 200, including the late 50
  merger.flush(out.sink());
  CHECK(out.times == std::vector<uint64_t>{100, 50, 200});
  CHECK(merger.late_records() == 1);
}

TEST_CASE("merger emits everything eventually when rounds are empty") {
  perf::RecordMerger merger;
  Collected out;
  merger.add(sample(0, 7));
  merger.add(sample(1, 3));
  merger.end_round(out.sink());
  merger.end_round(out.sink());  // an empty round: round 1's max (7) becomes safe
  CHECK(out.times == std::vector<uint64_t>{3, 7});
}

TEST_CASE("a source that holds back keeps newer records of other sources waiting for it") {
  perf::RecordMerger merger;
  Collected out;
  // Round 1: a backlog read in part (10..30, more to come from 30 on) and another source's
  // record at 100 (a process's exit, say).
  for (uint64_t t : {10, 20, 30}) merger.add(sample(0, t));
  merger.add(sample(1, 100));
  merger.hold_from(30);
  merger.end_round(out.sink());
  CHECK(out.times.empty());
  // Round 2: more of the backlog, still not all. Only what round 1 held back from is released.
  for (uint64_t t : {40, 50, 60}) merger.add(sample(0, t));
  merger.hold_from(60);
  merger.end_round(out.sink());
  CHECK(out.times == std::vector<uint64_t>{10, 20, 30});
  // Round 3: the rest of the backlog; nothing held back any more.
  for (uint64_t t : {70, 80}) merger.add(sample(0, t));
  merger.end_round(out.sink());
  CHECK(out.times == std::vector<uint64_t>{10, 20, 30, 40, 50, 60});
  // Round 4 (empty): everything seen so far, 100 included, is safe now.
  merger.end_round(out.sink());
  CHECK(out.times == std::vector<uint64_t>{10, 20, 30, 40, 50, 60, 70, 80, 100});
  // Without the holds, 100 would have let 40..80 out late, after it.
  CHECK(merger.late_records() == 0);
  CHECK(merger.buffered() == 0);
}

TEST_CASE("without a hold, a backlog read in parts comes out late: what hold_from prevents") {
  perf::RecordMerger merger;
  Collected out;
  for (uint64_t t : {10, 20, 30}) merger.add(sample(0, t));
  merger.add(sample(1, 100));
  merger.end_round(out.sink());
  for (uint64_t t : {40, 50, 60}) merger.add(sample(0, t));
  merger.end_round(out.sink());  // releases up to 100
  for (uint64_t t : {70, 80}) merger.add(sample(0, t));
  merger.flush(out.sink());
  CHECK(out.times == std::vector<uint64_t>{10, 20, 30, 40, 50, 60, 100, 70, 80});
  CHECK(merger.late_records() == 2);
}

TEST_CASE("merger output is sorted for many shuffled rounds and matches the input multiset") {
  perf::RecordMerger merger;
  Collected out;
  std::vector<uint64_t> all;
  uint64_t clock = 0;
  // Each CPU's records are ordered, CPUs are read one after another, and a CPU's record may be
  // up to one round older than what other CPUs already delivered.
  for (int round = 0; round < 40; ++round) {
    for (uint32_t cpu = 0; cpu < 4; ++cpu) {
      for (int i = 0; i < 5; ++i) {
        const uint64_t t =
            clock + static_cast<uint64_t>((cpu * 7 + static_cast<uint32_t>(i) * 13) % 50);
        merger.add(sample(cpu, t));
        all.push_back(t);
      }
    }
    clock += 50;
    merger.end_round(out.sink());
    CHECK(std::is_sorted(out.times.begin(), out.times.end()));
  }
  merger.flush(out.sink());
  CHECK(std::is_sorted(out.times.begin(), out.times.end()));
  std::sort(all.begin(), all.end());
  CHECK(out.times == all);
  CHECK(merger.late_records() == 0);
}
